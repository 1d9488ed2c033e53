import { enableStartCaches } from '../start-cache.ts';

// before any other module loads, so all of them come from the caches (start-cache.ts)
enableStartCaches('cli');

const { main } = await import('./run.ts');
await main(process.argv.slice(2));
