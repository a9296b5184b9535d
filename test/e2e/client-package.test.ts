/**
 * The client package as a stranger gets it: `npm pack`, installed from the tarball into an empty
 * directory (no registry: it has no dependencies to fetch), then run from there under the system
 * Node.js against the paid service on loopback; and docs/paying.md's `npx ./<tarball>` line as written.
 */
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type * as ClientApi from '../../packages/client/src/index.ts';
import { REPO_ROOT, run, runCli } from '../support/run-command.ts';
import { bashCommands } from './readme-commands.ts';
import { type PaidService, startPaidService } from '../world/paid-service.ts';

let service: PaidService;
let dir: string;

beforeAll(async () => {
  service = await startPaidService();
  dir = await mkdtemp(join(tmpdir(), 'website-checks-cli-'));
});
afterAll(async () => {
  await service?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const npm = (args: string[], cwd: string) =>
  run('npm', [...args, '--no-audit', '--no-fund', '--no-update-notifier'], {
    cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, npm_config_cache: join(dir, '.npm') },
    timeoutMs: 120_000,
  });

it('packs, installs into an empty directory with no network, and pays for a check from there', async () => {
  // Built by the global setup; --ignore-scripts so the prepack rebuild cannot race other test files.
  const pack = await npm(
    ['pack', '--json', '--ignore-scripts', '--pack-destination', dir],
    `${REPO_ROOT}packages/client`,
  );
  expect(pack.code, pack.stderr).toBe(0);
  const [{ filename, files }] = JSON.parse(pack.stdout) as [{ filename: string; files: { path: string }[] }];
  const paths = files.map((file) => file.path);
  expect(paths).toEqual(
    expect.arrayContaining([
      'LICENSE',
      'README.md',
      'package.json',
      'dist/cli.js',
      'dist/index.js',
      'dist/index.d.ts',
    ]),
  );
  expect(paths.filter((path) => path.startsWith('src/'))).toEqual([]);

  // docs/paying.md's line, as written, from the folder holding the tarball (npm offline: nothing to fetch).
  const docLines = bashCommands(await readFile(join(REPO_ROOT, 'docs/paying.md'), 'utf8'));
  expect(docLines).toContain('cd packages/client && npm pack   # writes ' + filename);
  const npx = docLines.find((line) => line.startsWith(`npx ./${filename} `))?.replace(/\s+#\s.*$/, '');
  expect(npx, `docs/paying.md runs npx ./${filename}`).toBeDefined();
  const help = await run('bash', ['-c', npx ?? ''], {
    cwd: dir,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      npm_config_cache: join(dir, '.npm'),
      npm_config_offline: 'true',
      npm_config_update_notifier: 'false',
      // The "Ok to proceed?" a person at a terminal answers with y.
      npm_config_yes: 'true',
    },
    timeoutMs: 120_000,
  });
  expect(help.code, help.stderr).toBe(0);
  expect(help.stdout).toMatch(/^Usage: website-checks-cli <command> <domain>/);

  const project = join(dir, 'empty');
  await mkdir(project);
  const install = await npm(['install', '--offline', join(dir, filename)], project);
  expect(install.code, install.stderr).toBe(0);
  const manifest = JSON.parse(
    await readFile(join(project, 'node_modules/website-checks-cli/package.json'), 'utf8'),
  );
  expect(manifest.dependencies ?? {}).toEqual({});

  const bin = join(project, 'node_modules/.bin/website-checks-cli');
  const version = await runCli(['--version'], {}, bin);
  expect(version).toEqual({ code: 0, stdout: `${manifest.version}\n`, stderr: '' });
  const payer = await service.newPayer(1_000_000n);
  const paid = await runCli(
    ['dns', 'example.com', '--url', service.url.href],
    { X402_PRIVATE_KEY: payer.privateKey },
    bin,
  );
  expect(paid.code, paid.stderr).toBe(0);
  expect(JSON.parse(paid.stdout)).toMatchObject({ domain: 'example.com' });
  expect(paid.stderr).toMatch(/^Paid dns: transaction 0x[0-9a-f]{64} /);
  expect(await service.chain.balanceOf(payer.address)).toBe(1_000_000n - 10_000n);
}, 120_000);

it('exposes the typed client API from the package entry', async () => {
  const api = (await import(join(REPO_ROOT, 'packages/client/dist/index.js'))) as typeof ClientApi;
  expect(api.COMMANDS.map((command) => command.name)).toEqual([
    'cert',
    'dns',
    'expiry',
    'site-health',
    'validate',
  ]);
  expect(api.WATCH_COMMANDS.map((command) => command.name)).toEqual([
    'watch',
    'watch-status',
    'watch-cancel',
    'watch-extend',
    'watch-list',
    'watch-rotate-secret',
    'watch-rotate-token',
  ]);
  const client = api.createClient({ url: service.url });
  for (const method of ['watchExtend', 'watchList', 'watchRotateToken', 'watchRotateSecret'] as const)
    expect(typeof client[method]).toBe('function');
  const result = await client.check('validate', 'Example.COM');
  expect(result).toMatchObject({ kind: 'ok', status: 200, body: { valid: true } });
});
