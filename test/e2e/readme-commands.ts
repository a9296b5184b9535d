/**
 * The shell commands of a README and how the README test runs each: against the local service
 * (its port and the demo payer's key filled in), or named as covered by another test with the
 * reason. A command that is neither fails the test, so a new README line cannot go untried.
 */

/** Every command line of the ```bash blocks: `\` continuations joined, comments and blanks dropped. */
export function bashCommands(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/^```bash\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? '');
  return blocks
    .flatMap((block) => block.replace(/\\\n\s*/g, ' ').split('\n'))
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

/** Lines another test (or CI itself) runs, with where. */
const COVERED: Record<string, string> = {
  'npm ci && npm start': 'this test file: npm start, then its printed command',
  'npm ci && npm test': 'CI: .ci/run runs exactly this',
  'npm ci --omit=dev': 'the production install of the Deploy section (CI installs with dev dependencies)',
  'docker build -t website-checks .':
    'no Docker daemon in CI; the Dockerfile itself is checked by test/e2e/container.test.ts',
  'docker compose up -d': 'no Docker daemon in CI; compose.yaml is checked by test/e2e/container.test.ts',
  'npm run edge:dev': 'test/e2e/edge-dev.test.ts runs it as written and pays through it',
  'cd packages/client && npm pack':
    'test/e2e/client-package.test.ts packs it (without the prepack rebuild, which would race other test files)',
  'npx ./website-checks-cli-1.0.0.tgz --help':
    'test/e2e/client-package.test.ts runs it as written, beside the tarball it packed',
  'npm run edge:secret -- X402_SETTLER_PRIVATE_KEY': 'needs a Cloudflare account: never in tests',
  'npm run edge:deploy':
    'needs a Cloudflare account: never in tests; the bundle it uploads is built and run by the edge tests',
};

/**
 * The Deploy section's start line: it pays out of a funded settler key on Base mainnet, so it runs
 * with its placeholders filled in only (test/e2e/deploy-command.test.ts).
 */
export const DEPLOY_START =
  /^NODE_ENV=production PUBLIC_BASE_URL=https:\/\/checks\.example\.com .* npm start$/;

export type CommandPlan =
  { kind: 'covered'; reason: string } | { kind: 'run'; command: string; expect: RegExp; paid: boolean };

/** Commands that call the service or its client: the ones this test runs. */
const RUNNABLE =
  /^(X402_PRIVATE_KEY=\S+ (BASE_URL=\S+ )?)?(npm run -s cli|npm exec -- node examples\/|curl |examples\/)/;

export function classifyReadmeCommand(line: string, local: { port: number; demoKey: string }): CommandPlan {
  const bare = line.replace(/\s+#\s.*$/, '');
  const covered = COVERED[bare];
  if (covered) return { kind: 'covered', reason: covered };
  if (DEPLOY_START.test(bare)) return { kind: 'covered', reason: 'test/e2e/deploy-command.test.ts' };
  if (!RUNNABLE.test(bare))
    throw new Error(`README command not tried by the README test; run it or mark it covered: ${line}`);
  const service = `http://localhost:${local.port}`;
  const command = bare
    .replaceAll('https://checks.example.com', service)
    .replaceAll('http://localhost:8080', service)
    // The README's placeholders for a payer key.
    .replace(/X402_PRIVATE_KEY=0x(…|5de4…365a)/g, `X402_PRIVATE_KEY=${local.demoKey}`);
  return {
    kind: 'run',
    command,
    expect: bare.includes('--help') ? /^Usage: website-checks-cli/ : /\S/,
    // A command given a key pays: its output names the settlement transaction.
    paid: bare.startsWith('X402_PRIVATE_KEY='),
  };
}
