import { enableCompileCache } from 'node:module';

// An operator command is a short process that loads a few hundred modules: Node's on-disk compile
// cache keeps their compiled code (and stripped TypeScript) between runs, which roughly halves the
// start (bench/RESULTS.md "CLI start"). NODE_COMPILE_CACHE moves it, NODE_DISABLE_COMPILE_CACHE=1
// turns it off; a cache that cannot be written is skipped silently.
enableCompileCache();

const { main } = await import('./run.ts');
await main(process.argv.slice(2));
