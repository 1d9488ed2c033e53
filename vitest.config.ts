import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Resolve packages as Node does at run time. Vite's default adds the `development` condition,
  // which loads graphql's dev build for our files while yoga and Pothos (loaded by Node) get the
  // production build: two graphql copies in one process. `module-sync`, not `module`, is what Node
  // 24 itself matches: `module` would pick the AWS SDK's bundler build (dist-es), whose
  // extensionless imports Node cannot load.
  ssr: { resolve: { conditions: ['module-sync', 'node', 'production'] } },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    // each file gets its own database and Redis prefix, so files run in parallel safely
    pool: 'forks',
    // A worker runs file after file in one module graph instead of starting afresh for each: src/
    // (Fastify, MikroORM, GraphQL, BullMQ) is imported once per worker, not once per file, which was
    // a third of the suite's time (bench/RESULTS.md "Test suite"). The files share no state: each
    // has its own database, Redis prefix and servers, and none changes process-wide settings.
    isolate: false,
    fileParallelism: true,
    maxWorkers: 3,
    // Timeouts only catch a hang: a test waits for what it means (expect.poll, outbox rows), never
    // for a deadline, so these are generous enough for a two-core machine busy with other work.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    expect: { poll: { timeout: 30_000, interval: 25 } },
  },
});
