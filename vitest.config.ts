import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The on-chain suites share one anvil per file; files run in parallel on the two CI cores.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          // Pure code: no socket, no process (enforced), seconds in all. `npm run test:unit`.
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          setupFiles: ['test/support/no-sockets-or-processes.ts'],
          // Files share their workers' loaded modules (viem, the x402 packages, the PSL): loading them
          // per file was two thirds of the project's time. Unit tests keep no state between files.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          // Loopback fakes, redis-server, anvil, workerd and child processes, one module at a time.
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/conformance/**/*.test.ts'],
          // Builds the client package the CLI tests run.
          globalSetup: ['test/global-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          // The service as users run it: npm start, the Worker, the container, the documents' commands.
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          globalSetup: ['test/global-setup.ts'],
        },
      },
    ],
  },
});
