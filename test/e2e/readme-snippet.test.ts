/**
 * The README's TypeScript example of paying with the official x402 client, as a reader takes it:
 * extracted from the README, compiled by `tsc --strict`, then run by Node.js against the paid
 * service on loopback with a funded payer in `X402_PRIVATE_KEY`. It pays once and prints the result
 * and the receipt.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { REPO_ROOT, run } from '../support/run-command.ts';
import { type PaidService, startPaidService } from '../world/paid-service.ts';

const FUNDS = 1_000_000n;

let service: PaidService;
let dir: string;

beforeAll(async () => {
  service = await startPaidService();
  // Inside the repository, so that the snippet's imports resolve to its node_modules.
  dir = join(REPO_ROOT, 'test/artifacts', `readme-snippet-${process.pid}`);
  await mkdir(dir, { recursive: true });
});
afterAll(async () => {
  await service?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The ```ts block of the README that pays with `@x402/fetch`. */
async function readmeSnippet(): Promise<string> {
  const readme = await readFile(join(REPO_ROOT, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? '');
  const snippet = blocks.find((block) => block.includes('wrapFetchWithPayment'));
  if (!snippet) throw new Error('README has no TypeScript example paying with @x402/fetch');
  return snippet;
}

it('compiles under tsc --strict and pays for the check it shows', async () => {
  const snippet = await readmeSnippet();
  expect(snippet).toContain('process.env.X402_PRIVATE_KEY');
  expect(snippet).not.toMatch(/process\.env\.(?!X402_PRIVATE_KEY\b)/);
  const file = join(dir, 'pay.ts');
  await writeFile(file, snippet.replaceAll('https://checks.example.com', service.url.origin));

  const tsc = await run(
    process.execPath,
    [
      join(REPO_ROOT, 'node_modules/typescript/bin/tsc'),
      '--strict',
      '--noEmit',
      '--target',
      'ES2022',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--types',
      'node',
      '--skipLibCheck',
      file,
    ],
    { cwd: REPO_ROOT, timeoutMs: 120_000 },
  );
  expect(tsc.stdout + tsc.stderr).toBe('');
  expect(tsc.code).toBe(0);

  const payer = await service.newPayer(FUNDS);
  const paid = await run(process.execPath, [file], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, X402_PRIVATE_KEY: payer.privateKey },
  });
  expect(paid.code, paid.stderr).toBe(0);
  expect(paid.stdout).toMatch(/domain: 'example\.com'/);
  expect(paid.stdout).toMatch(/transaction: '0x[0-9a-f]{64}'/);
  expect(await service.chain.balanceOf(payer.address)).toBe(FUNDS - 30_000n);

  const unset = await run(process.execPath, [file], { cwd: REPO_ROOT });
  expect(unset.code).toBe(1);
  expect(unset.stderr).toContain('Set X402_PRIVATE_KEY to the payer key.');
}, 180_000);
