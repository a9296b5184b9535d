/**
 * What `npm test` does first on a machine without Chromium, redis-server or nginx: installs them with
 * apt-get as root, or stops with one line naming what to install. The machine is injected: apt-get
 * is never run here, only the commands it would run are recorded.
 */
import { describe, expect, it } from 'vitest';
import {
  type Machine,
  provision,
  REQUIREMENTS,
  type Requirement,
  thisMachine,
} from '../../../scripts/provision-test.ts';

interface FakeMachine extends Machine {
  commands: string[];
}

/** A machine with `present` installed, on which apt-get answers as `apt` says. */
function machine(options: {
  present: string[];
  isRoot?: boolean;
  hasAptGet?: boolean;
  apt?: Record<string, { code: number; output: string }>;
  installs?: boolean;
}): FakeMachine {
  const present = new Set(options.present);
  const commands: string[] = [];
  return {
    commands,
    has: (requirement: Requirement) => present.has(requirement.name),
    isRoot: options.isRoot ?? true,
    hasAptGet: options.hasAptGet ?? true,
    async run(command, args) {
      commands.push([command, ...args].join(' '));
      const answer = options.apt?.[args[0] ?? ''] ?? { code: 0, output: '' };
      if (answer.code === 0 && args[0] === 'install' && options.installs !== false)
        for (const requirement of REQUIREMENTS)
          if (args.includes(requirement.debianPackage)) present.add(requirement.name);
      return answer;
    },
  };
}

describe('provision', () => {
  it('does nothing when Chromium, redis-server and nginx are there', async () => {
    const fake = machine({ present: ['Chromium', 'redis-server', 'nginx'], isRoot: false });
    expect(await provision(fake)).toEqual({ ok: true, installed: [] });
    expect(fake.commands).toEqual([]);
  });

  it('as root, updates the package lists and installs only what is missing', async () => {
    const fake = machine({ present: ['redis-server', 'nginx'] });
    expect(await provision(fake)).toEqual({ ok: true, installed: ['Chromium'] });
    expect(fake.commands).toEqual(['apt-get update -qq', 'apt-get install -y -qq chromium']);
    const all = machine({ present: [] });
    expect(await provision(all)).toEqual({ ok: true, installed: ['Chromium', 'redis-server', 'nginx'] });
    expect(all.commands.at(-1)).toBe('apt-get install -y -qq chromium redis-server nginx');
  });

  it('not as root: one line naming each and the command, and no apt-get run', async () => {
    const fake = machine({ present: ['nginx'], isRoot: false });
    const result = await provision(fake);
    expect(result).toEqual({
      ok: false,
      line: `npm test needs Chromium (${REQUIREMENTS[0]?.where}) and redis-server (redis-server), which are missing and could not be installed (installing needs root, and npm test does not run as root): install them, e.g. sudo apt-get install chromium redis-server, then run npm test again.`,
    });
    const all = await provision(machine({ present: [], isRoot: false }));
    expect(!all.ok && all.line).toContain(
      `npm test needs Chromium (${REQUIREMENTS[0]?.where}), redis-server (redis-server) and nginx (${REQUIREMENTS[2]?.where}), which are missing`,
    );
    expect(!all.ok && all.line).toContain('sudo apt-get install chromium redis-server nginx,');
    expect(fake.commands).toEqual([]);
  });

  it('without apt-get: one line naming what is missing', async () => {
    const result = await provision(machine({ present: ['Chromium', 'nginx'], hasAptGet: false }));
    expect(result.ok).toBe(false);
    expect(!result.ok && result.line).toBe(
      'npm test needs redis-server (redis-server), which is missing and could not be installed (this machine has no apt-get): install it, e.g. sudo apt-get install redis-server, then run npm test again.',
    );
  });

  it('a failed update or install: one line with apt-get’s own last line', async () => {
    const offline = await provision(
      machine({
        present: ['redis-server', 'nginx'],
        apt: {
          update: { code: 100, output: 'W: Some index files failed\nE: Could not resolve deb.debian.org\n' },
        },
      }),
    );
    expect(!offline.ok && offline.line).toMatch(
      /^npm test needs Chromium .* \(apt-get update failed: E: Could not resolve deb\.debian\.org\): install it, e\.g\. sudo apt-get install chromium, then run npm test again\.$/,
    );
    const broken = await provision(
      machine({
        present: [],
        apt: { install: { code: 100, output: 'E: Unable to locate package chromium' } },
      }),
    );
    expect(!broken.ok && broken.line).toContain(
      '(apt-get install failed: E: Unable to locate package chromium)',
    );
    expect(!broken.ok && broken.line).not.toContain('\n');
  });

  it('an install that leaves nothing where the tests look is a refusal, not a pass', async () => {
    const result = await provision(machine({ present: ['redis-server'], installs: false }));
    expect(!result.ok && result.line).toContain('(apt-get installed it, but not where the tests look)');
  });

  it('finds what this machine has, as npm test runs it', () => {
    const here = thisMachine();
    expect(here.has({ name: 'node', debianPackage: 'nodejs', where: process.execPath })).toBe(true);
    expect(here.has({ name: 'node', debianPackage: 'nodejs', where: 'node' })).toBe(true);
    expect(here.has({ name: 'none', debianPackage: 'none', where: 'no-such-command-here' })).toBe(false);
    expect(here.has({ name: 'none', debianPackage: 'none', where: '/no/such/file' })).toBe(false);
  });
});
