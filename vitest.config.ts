import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * e2e files of a minute or more, longest first. Without a timing cache (a fresh clone, as in CI)
 * Vitest starts the largest files first, and these are small: the last one would run alone on one
 * worker at the end. Started first, the short files fill in beside them.
 */
const LONG_E2E_FILES = [
  'charged-iff-delivered-edge',
  'watch-crash',
  'redis-watches',
  'edge-watch-rounds',
  'charged-iff-delivered-http',
  'charged-iff-delivered-mcp',
  'charged-iff-delivered-mcp-2026',
  'charged-iff-delivered-redis',
  'fleet-crash',
];

/** Vitest's order (by project, then past durations or size), with the long e2e files first in theirs. */
class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const projects = [...new Set(sorted.map((file) => file.project.name))];
    const rank = (file: TestSpecification) => {
      const at = LONG_E2E_FILES.findIndex((name) => file.moduleId.endsWith(`/test/e2e/${name}.test.ts`));
      return at === -1 ? LONG_E2E_FILES.length : at;
    };
    return sorted
      .map((file, at) => ({ file, at }))
      .sort(
        (a, b) =>
          projects.indexOf(a.file.project.name) - projects.indexOf(b.file.project.name) ||
          rank(a.file) - rank(b.file) ||
          a.at - b.at,
      )
      .map(({ file }) => file);
  }
}

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The on-chain suites share one anvil per file; files run in parallel on the two CI cores. The
    // e2e project runs three at once (`npm run test:e2e`): its long files mostly wait (a lease, a
    // sweep, a kill), and the suite passes beside two busy loops (`npm run test:busy`).
    maxWorkers: 2,
    sequence: { sequencer: LongFilesFirst },
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
