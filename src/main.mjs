// The service's entry (`npm start`, the container's CMD).
//
// JavaScript, not TypeScript, on purpose: as for the CLI (src/cli/main.mjs), the compile cache goes
// on before any TypeScript module loads, so all of them come from the start caches
// (start-cache.ts) and a worker that restarts in a deploy is ready sooner for the approval timers
// due meanwhile; a .ts entry would be stripped before that, loading the TypeScript stripper.
import { enableCompileCache } from 'node:module';

enableCompileCache();
const { enableStartCaches } = await import('./start-cache.ts');
enableStartCaches('server');

await import('./server.ts');
