/**
 * A fresh production install of this project as npm's script policy treats it (`npm help
 * install-scripts`), offline from the npm cache the CI's own `npm ci` filled: with unreviewed
 * install scripts made an error, `npm ci` still installs, and the project's Node.js 24 is there;
 * with every install script refused, `npm start` says in one line what to allow, and doing it
 * brings Node.js 24.
 */
import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { REPO_ROOT, run } from '../support/run-command.ts';

const NPM_TIMEOUT_MS = 240_000;
const dirs: string[] = [];

afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** A copy of what a production install reads: the manifest, the lock file and the start entry. */
async function projectCopy(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'install-scripts-'));
  dirs.push(dir);
  for (const file of ['package.json', 'package-lock.json']) await cp(join(REPO_ROOT, file), join(dir, file));
  await mkdir(join(dir, 'src'));
  for (const file of ['start.js', 'node-version-check.js'])
    await cp(join(REPO_ROOT, 'src', file), join(dir, 'src', file));
  return dir;
}

/** The machine's PATH without any project's node_modules/.bin: its own (older) Node.js and npm. */
const MACHINE_PATH = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((entry) => !entry.includes('node_modules'))
  .join(delimiter);

const npm = (args: string[], cwd: string) =>
  run('npm', args, {
    cwd,
    env: {
      PATH: MACHINE_PATH,
      HOME: process.env.HOME,
      npm_config_offline: 'true',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
    },
    timeoutMs: NPM_TIMEOUT_MS,
  });

const projectNode = (dir: string) => npm(['exec', '--', 'node', '--version'], dir);

it(
  'npm ci with unreviewed install scripts as errors installs Node.js 24',
  async () => {
    const dir = await projectCopy();
    const ci = await npm(['ci', '--omit=dev', '--strict-allow-scripts'], dir);
    expect(ci.code, ci.stderr).toBe(0);
    expect(ci.stdout + ci.stderr).not.toMatch(/not yet covered by allowScripts/);
    const node = await projectNode(dir);
    expect(node.stdout.trim()).toMatch(/^v24\./);
  },
  NPM_TIMEOUT_MS * 2,
);

it(
  'npm ci with every script refused: npm start says in one line what to allow, and that brings Node.js 24',
  async () => {
    const machineNode = await run('node', ['--version'], { env: { PATH: MACHINE_PATH } });
    expect(machineNode.stdout.trim(), 'the machine runs npm on an older Node.js').not.toMatch(/^v24\./);

    const dir = await projectCopy();
    const ci = await npm(['ci', '--omit=dev', '--ignore-scripts'], dir);
    expect(ci.code, ci.stderr).toBe(0);

    const start = await npm(['start'], dir);
    expect(start.code).toBe(1);
    const said = start.stderr.split('\n').filter((line) => line.startsWith('website-checks '));
    expect(said).toEqual([expect.stringMatching(/needs Node\.js 24 .*allowScripts.*run: npm rebuild node$/)]);
    expect(start.stderr).not.toMatch(/SyntaxError|enableCompileCache/);

    const remedy = said[0]?.replace(/^.*run: /, '') ?? '';
    expect(remedy).toBe('npm rebuild node');
    const rebuild = await npm(remedy.split(' ').slice(1), dir);
    expect(rebuild.code, rebuild.stderr).toBe(0);
    const node = await projectNode(dir);
    expect(node.stdout.trim()).toMatch(/^v24\./);
  },
  NPM_TIMEOUT_MS * 3,
);
