import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Builds the client package the CLI tests run.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The on-chain suites share one anvil per file; files run in parallel on the two CI cores.
    maxWorkers: 2,
  },
});
