// The operator CLI's entry (`npm run -s shelf -- ...`, or `node src/cli/main.mjs ...`).
//
// JavaScript, not TypeScript, on purpose: Node strips the types of a .ts entry, and of the modules
// it imports statically, before any code of ours can turn the compile cache on, and stripping
// even one file loads the TypeScript stripper (about 70 ms of an 600 ms read command,
// bench/RESULTS.md "CLI start"). So the cache goes on first, and every TypeScript module after it
// comes stripped and compiled from the cache.
import { enableCompileCache } from 'node:module';

enableCompileCache();
const { enableStartCaches } = await import('../start-cache.ts');
enableStartCaches('cli');

const { main } = await import('./run.ts');
await main(process.argv.slice(2));
