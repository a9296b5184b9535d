/**
 * The documents' TypeScript examples of paying with the official x402 client, as a reader takes
 * them: extracted from the document, compiled by `tsc --strict`, then run by Node.js against the
 * service on loopback with a funded payer in `X402_PRIVATE_KEY`. A check's example (the README's
 * first paid call) pays once and prints the result and the receipt; the signed-in wallet's example
 * (docs/watches.md) lists the watches the key bought, prints their events and cancels them.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markdownDocuments } from '../support/documents.ts';
import { REPO_ROOT, run } from '../support/run-command.ts';
import { type PaidService, startPaidService } from '../world/paid-service.ts';
import { buyPullOnly } from '../world/sign-in-journey.ts';
import { startWatchService, type WatchService } from '../world/watch-service.ts';

const FUNDS = 1_000_000n;

let service: PaidService;
let watchService: WatchService;
let dir: string;

beforeAll(async () => {
  [service, watchService] = await Promise.all([startPaidService(), startWatchService()]);
  // Inside the repository, so that the snippet's imports resolve to its node_modules.
  dir = join(REPO_ROOT, 'test/artifacts', `readme-snippet-${process.pid}`);
  await mkdir(dir, { recursive: true });
});
afterAll(async () => {
  await Promise.all([service?.close(), watchService?.close()]);
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

const payingExamples = await payingSnippets();
/** The signed-in wallet's examples (the sign-in hook); the others pay for a check. */
const signingIn = ({ snippet }: { snippet: string }) => snippet.includes('createSIWxClientHook');
const snippets = payingExamples.filter((example) => !signingIn(example));
const signInSnippets = payingExamples.filter(signingIn);

/** `snippet` written for the service at `origin`, compiled by `tsc --strict`: its file. */
async function compiled(snippet: string, origin: string, name: string): Promise<string> {
  expect(snippet).toContain('process.env.X402_PRIVATE_KEY');
  expect(snippet).not.toMatch(/process\.env\.(?!X402_PRIVATE_KEY\b)/);
  const file = join(dir, name);
  await writeFile(file, snippet.replaceAll('https://checks.example.com', origin));
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
  return file;
}

/** Runs the compiled example as a reader does, with `key` (or none) in `X402_PRIVATE_KEY`. */
const runExample = (file: string, key?: string) =>
  run(process.execPath, [file], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...(key ? { X402_PRIVATE_KEY: key } : {}) },
  });

it('finds the README example', () => {
  expect(snippets.map(({ file }) => file)).toContain('README.md');
});

it.each(snippets)(
  '$file: compiles under tsc --strict and pays for the check it shows',
  async ({ snippet }) => {
    const file = await compiled(snippet, service.url.origin, 'pay.ts');
    const payer = await service.newPayer(FUNDS);
    const paid = await runExample(file, payer.privateKey);
    expect(paid.code, paid.stderr).toBe(0);
    expect(paid.stdout).toMatch(/domain: 'example\.com'/);
    expect(paid.stdout).toMatch(/transaction: '0x[0-9a-f]{64}'/);
    expect(await service.chain.balanceOf(payer.address)).toBe(FUNDS - 30_000n);

    const unset = await runExample(file);
    expect(unset.code).toBe(1);
    expect(unset.stderr).toContain('Set X402_PRIVATE_KEY to the payer key.');
  },
  180_000,
);

describe.each(signInSnippets)('$file: the signed-in wallet', ({ snippet }) => {
  it('compiles under tsc --strict, lists the watch its key bought, prints its events and cancels it', async () => {
    const file = await compiled(snippet, watchService.url.origin, 'sign-in.ts');
    const agent = await watchService.newPayer(FUNDS);
    const bought = await buyPullOnly(watchService.url, agent, 'example.com');
    const paidBefore = await watchService.chain.balanceOf(agent.address);

    const ran = await runExample(file, agent.privateKey);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toContain(bought.watch_id);
    expect(ran.stdout).toContain('watch.created');
    const after = await fetch(new URL(`/v1/watches/${bought.watch_id}`, watchService.url), {
      headers: { authorization: `Bearer ${bought.token}` },
    });
    expect(await after.json()).toMatchObject({ status: 'cancelled' });
    // Signing in costs nothing.
    expect(await watchService.chain.balanceOf(agent.address)).toBe(paidBefore);

    const unset = await runExample(file);
    expect(unset.code).toBe(1);
    expect(unset.stderr).toContain('Set X402_PRIVATE_KEY to the payer key.');
  }, 180_000);
});

it('finds the signed-in example in docs/watches.md', () => {
  expect(signInSnippets.map(({ file }) => file)).toEqual(['docs/watches.md']);
});
