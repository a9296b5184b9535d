/**
 * The documents' TypeScript examples of paying with the official x402 client (the README's first
 * paid call), as a reader takes them: extracted from the document, compiled by `tsc --strict`, then run by Node.js against the paid
 * service on loopback with a funded payer in `X402_PRIVATE_KEY`. It pays once and prints the result
 * and the receipt.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { markdownDocuments } from '../support/documents.ts';
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

/** Every ```ts block of a document that pays with `@x402/fetch`, with its document. */
async function payingSnippets(): Promise<{ file: string; snippet: string }[]> {
  const found: { file: string; snippet: string }[] = [];
  for (const file of await markdownDocuments()) {
    const text = await readFile(join(REPO_ROOT, file), 'utf8');
    for (const [, block = ''] of text.matchAll(/^```ts\n([\s\S]*?)^```$/gm))
      if (block.includes('wrapFetchWithPayment')) found.push({ file, snippet: block });
  }
  return found;
}

const snippets = await payingSnippets();

it('finds the README example', () => {
  expect(snippets.map(({ file }) => file)).toContain('README.md');
});

it.each(snippets)(
  '$file: compiles under tsc --strict and pays for the check it shows',
  async ({ snippet }) => {
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
  },
  180_000,
);
