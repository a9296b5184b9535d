/**
 * The first step of `npm test`: what the tests need beyond npm's packages is on this machine, or
 * one line says what to install. Debian's Chromium (the browser test drives `/usr/bin/chromium`),
 * `redis-server` (the shared-store tests run a real one) and nginx (the reverse-proxy test puts it,
 * with its default settings, in front of the service) are installed with apt-get when they are
 * missing and this runs as root; otherwise, or when the install fails, the line names them and
 * the command that installs them, and `npm test` stops (exit 1) before any test runs.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { runCollected } from './run-collected.ts';

export interface Requirement {
  /** What a person calls it. */
  name: string;
  /** The Debian package that provides it. */
  debianPackage: string;
  /** Where the tests look for it: an absolute path, or a command searched on PATH. */
  where: string;
}

export const REQUIREMENTS: readonly Requirement[] = [
  { name: 'Chromium', debianPackage: 'chromium', where: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' },
  { name: 'redis-server', debianPackage: 'redis-server', where: 'redis-server' },
  { name: 'nginx', debianPackage: 'nginx', where: process.env.NGINX_PATH ?? '/usr/sbin/nginx' },
];

export interface Machine {
  /** Whether the requirement is present (an executable file where the tests look for it). */
  has(requirement: Requirement): boolean;
  isRoot: boolean;
  hasAptGet: boolean;
  /** Runs a command to its end; `output` is its stdout and stderr. */
  run(command: string, args: string[]): Promise<{ code: number | null; output: string }>;
}

export type Provisioned = { ok: true; installed: string[] } | { ok: false; line: string };

/** The one line naming what is missing, why it was not installed, and how to install it. */
export function missingLine(missing: readonly Requirement[], cause: string): string {
  const names = inWords(missing.map((requirement) => `${requirement.name} (${requirement.where})`));
  const packages = missing.map((requirement) => requirement.debianPackage).join(' ');
  return `npm test needs ${names}, which ${missing.length > 1 ? 'are' : 'is'} missing and could not be installed (${cause}): install ${missing.length > 1 ? 'them' : 'it'}, e.g. sudo apt-get install ${packages}, then run npm test again.`;
}

/** `a`, `a and b`, `a, b and c`. */
function inWords(items: readonly string[]): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

function refusal(missing: readonly Requirement[], cause: string): Provisioned {
  return { ok: false, line: missingLine(missing, cause) };
}

/** The last non-empty line of a command's output: apt-get's own reason for failing. */
function lastLine(output: string): string {
  return (
    output
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean)
      .at(-1) ?? 'no output'
  );
}

/** Installs what is missing, or says in one line why it cannot. */
export async function provision(
  machine: Machine,
  requirements: readonly Requirement[] = REQUIREMENTS,
): Promise<Provisioned> {
  const missing = requirements.filter((requirement) => !machine.has(requirement));
  if (missing.length === 0) return { ok: true, installed: [] };
  if (!machine.hasAptGet) return refusal(missing, 'this machine has no apt-get');
  if (!machine.isRoot) return refusal(missing, 'installing needs root, and npm test does not run as root');
  const update = await machine.run('apt-get', ['update', '-qq']);
  if (update.code !== 0) return refusal(missing, `apt-get update failed: ${lastLine(update.output)}`);
  // With recommends, as the browser test was proven: Chromium's bring the fonts its layout is measured in.
  const install = await machine.run('apt-get', [
    'install',
    '-y',
    '-qq',
    ...missing.map((requirement) => requirement.debianPackage),
  ]);
  if (install.code !== 0) return refusal(missing, `apt-get install failed: ${lastLine(install.output)}`);
  const still = missing.filter((requirement) => !machine.has(requirement));
  if (still.length > 0) return refusal(still, 'apt-get installed it, but not where the tests look');
  return { ok: true, installed: missing.map((requirement) => requirement.name) };
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** This machine, as `npm test` finds it. */
export function thisMachine(): Machine {
  const onPath = (command: string) =>
    (process.env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && executable(join(dir, command)));
  return {
    has: ({ where }) => (where.startsWith('/') ? executable(where) : onPath(where)),
    isRoot: process.getuid?.() === 0,
    hasAptGet: onPath('apt-get'),
    run: (command, args) =>
      // RUNLEVEL=1: invoke-rc.d does not start the installed redis service; the tests start their own.
      runCollected(command, args, {
        env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive', RUNLEVEL: '1' },
      }),
  };
}

if (import.meta.main) {
  const result = await provision(thisMachine());
  if (!result.ok) {
    process.stderr.write(`${result.line}\n`);
    process.exit(1);
  }
  if (result.installed.length > 0)
    process.stdout.write(`Installed for the tests: ${result.installed.join(', ')}.\n`);
}
