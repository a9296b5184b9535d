import { describe, expect, it } from 'vitest';
import { figuresText, withFigures } from '../../../scripts/unit-figures.ts';

const run = (files: number, tests: number, wallMs: number, testsMs: number) => ({
  files,
  tests,
  wallMs,
  testsMs,
});

describe('the figures block of CONTRIBUTING.md', () => {
  it('says what the runs measured, wrapped at the print width', () => {
    const text = figuresText(run(58, 1048, 21_400, 13_600), run(58, 1048, 50_600, 14_000), {
      cores: 2,
      load: 8.46,
    });
    expect(text.replaceAll('\n', ' ')).toBe(
      'Duration of the unit project at the last `npm run figures` (2 cores, load average 8.5): 21 s for 58 ' +
        'files and 1,048 tests (14 s of it in the tests themselves; 51 s when every file loads its modules ' +
        'afresh, hence `isolate: false` there).',
    );
    expect(text.split('\n').every((line) => line.length <= 110)).toBe(true);
  });

  it('replaces only what lies between the markers', () => {
    const start = '<!-- figures:unit: written by `npm run figures` (scripts/unit-figures.ts) -->';
    const document = `before\n${start}\nold figures\n<!-- /figures:unit -->\nafter\n`;
    expect(withFigures(document, 'new figures')).toBe(
      `before\n${start}\n\nnew figures\n<!-- /figures:unit -->\nafter\n`,
    );
    expect(() => withFigures('no block', 'new')).toThrow('no');
  });
});
