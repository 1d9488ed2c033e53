import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Resolve packages as Node does at run time. Vite's default adds the `development` condition,
  // which loads graphql's dev build for our files while yoga and Pothos (loaded by Node) get the
  // production build: two graphql copies in one process.
  ssr: { resolve: { conditions: ['module', 'node', 'production'] } },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    // each file gets its own database and Redis prefix, so files run in parallel safely
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 3,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
