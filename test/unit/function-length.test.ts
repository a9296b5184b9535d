/**
 * A function in src/ kept over 80 lines says why: every disable of `max-lines-per-function`
 * (eslint.config.js) carries a `-- reason`. The eslint-comments plugin that would check this is not
 * a dependency, so the sources are scanned here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** `file:line` of each disable of max-lines-per-function in `text` with no `-- reason` after it. */
function unreasonedDisables(file: string, text: string): string[] {
  return text.split('\n').flatMap((line, index) => {
    const directive = /eslint-disable(?:-next-line|-line)?\b(.*)$/.exec(line)?.[1] ?? '';
    if (!directive.includes('max-lines-per-function')) return [];
    const reason = directive
      .split(/\s--\s/)[1]
      ?.replace(/\*\/\s*$/, '')
      .trim();
    return reason ? [] : [`${file}:${index + 1}`];
  });
}

describe('long functions in src/', () => {
  it('finds a disable without a reason', () => {
    const text = [
      '// eslint-disable-next-line max-lines-per-function',
      '/* eslint-disable max-lines-per-function -- */',
      '// eslint-disable-next-line max-lines-per-function -- the method table shares one cursor',
    ].join('\n');
    expect(unreasonedDisables('a.ts', text)).toEqual(['a.ts:1', 'a.ts:2']);
  });

  it('say why wherever the length rule is disabled', () => {
    const files = sourceFiles(join(root, 'src'));
    expect(files.length).toBeGreaterThan(0);
    const missing = files.flatMap((path) =>
      unreasonedDisables(relative(root, path), readFileSync(path, 'utf8')),
    );
    expect(missing).toEqual([]);
  });
});
