import { enableStartCaches } from './start-cache.ts';

// The service's entry (`npm start`, the container's CMD). Before any other module loads, so that
// all of them come from the start caches (start-cache.ts): a worker that restarts in a deploy is
// ready sooner for the approval timers due meanwhile.
enableStartCaches('server');

await import('./server.ts');
