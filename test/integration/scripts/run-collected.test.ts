/** The scripts' child processes: exit code and both output streams, collected to the end. */
import { expect, it } from 'vitest';
import { runCollected } from '../../../scripts/run-collected.ts';

it('collects stdout and stderr and the exit code of a command run to its end', async () => {
  const result = await runCollected(
    process.execPath,
    ['-e', "process.stdout.write('out\\n'); process.stderr.write(process.env.WHO + '\\n'); process.exit(3)"],
    { env: { WHO: 'err' } },
  );
  expect(result.code).toBe(3);
  expect(result.output.split('\n').sort()).toEqual(['', 'err', 'out']);
});
