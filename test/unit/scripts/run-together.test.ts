/**
 * `npm test`'s first step runs its commands side by side: all start at once, each one's output is
 * reported whole as it ends, and the step fails when any command failed (or could not start). The
 * commands are injected: nothing is spawned here.
 */
import { describe, expect, it, vi } from 'vitest';
import { printed, type Ran, runTogether } from '../../../scripts/run-together.ts';

/** Commands that end when told, recording which were started. */
function commands() {
  const started: string[] = [];
  const finish = new Map<string, (answer: { code: number | null; output: string }) => void>();
  const run = (command: string) =>
    new Promise<{ code: number | null; output: string }>((resolve) => {
      started.push(command);
      finish.set(command, resolve);
    });
  return {
    run,
    started,
    finish: (command: string, code: number | null, output = '') => finish.get(command)?.({ code, output }),
  };
}

describe('runTogether', () => {
  it('starts every command before any ends, and reports each whole as it ends', async () => {
    const { run, started, finish } = commands();
    const reported: Ran[] = [];
    let clock = 0;
    const all = runTogether(
      ['tsc --noEmit', 'eslint .', 'prettier --check .'],
      run,
      (ran) => reported.push(ran),
      () => clock,
    );
    expect(started).toEqual(['tsc --noEmit', 'eslint .', 'prettier --check .']);
    clock = 2_000;
    finish('eslint .', 0, 'linted\n');
    await vi.waitFor(() => expect(reported.map((ran) => ran.command)).toEqual(['eslint .']));
    clock = 5_000;
    finish('prettier --check .', 0);
    finish('tsc --noEmit', 0, 'typed');
    expect(await all).toBe(true);
    expect(reported).toEqual([
      { command: 'eslint .', ok: true, output: 'linted\n', ms: 2_000 },
      { command: 'prettier --check .', ok: true, output: '', ms: 5_000 },
      { command: 'tsc --noEmit', ok: true, output: 'typed', ms: 5_000 },
    ]);
  });

  it('fails when any command fails, is killed (no exit code) or cannot start, once all have ended', async () => {
    const { run, finish } = commands();
    const reported: Ran[] = [];
    const all = runTogether(['a', 'b'], run, (ran) => reported.push(ran));
    finish('a', 2, 'src/x.ts: error');
    finish('b', 0);
    expect(await all).toBe(false);
    expect(reported.find((ran) => ran.command === 'a')).toMatchObject({
      ok: false,
      output: 'src/x.ts: error',
    });

    const killed = commands();
    const stopped = runTogether(['a'], killed.run, () => {});
    killed.finish('a', null);
    expect(await stopped).toBe(false);

    const unstartable: Ran[] = [];
    expect(
      await runTogether(
        ['missing'],
        () => Promise.reject(new Error('spawn sh ENOENT')),
        (ran) => unstartable.push(ran),
      ),
    ).toBe(false);
    expect(unstartable[0]).toMatchObject({ ok: false, output: 'Error: spawn sh ENOENT' });
  });

  it('succeeds with nothing to run', async () => {
    expect(
      await runTogether(
        [],
        () => Promise.reject(new Error('never')),
        () => {},
      ),
    ).toBe(true);
  });
});

describe('printed', () => {
  it('heads the output with the command, its result and its time', () => {
    expect(printed({ command: 'tsc --noEmit', ok: true, output: '', ms: 41_234 })).toBe(
      '> tsc --noEmit: ok (41.2 s)\n',
    );
    expect(printed({ command: 'eslint .', ok: false, output: 'src/a.ts\n  1:1 error\n\n', ms: 900 })).toBe(
      '> eslint .: FAILED (0.9 s)\nsrc/a.ts\n  1:1 error\n',
    );
  });
});
