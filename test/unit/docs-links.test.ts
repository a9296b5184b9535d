/**
 * Every relative link of every Markdown document resolves: to a file or folder of the repository,
 * and, with a `#fragment` into a Markdown file, to one of its headings (GitHub's anchors).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DOCUMENTATION } from '../../src/http/discovery/documentation.ts';
import { markdownDocuments } from '../support/documents.ts';
import { REPO_ROOT } from '../support/run-command.ts';

/** The text with fenced blocks and code spans blanked: links inside code are not links. */
function withoutCode(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```$/gm, '').replace(/`[^`\n]*`/g, '``');
}

/** The targets of inline links and images, `[text](target "title")`. */
export function linkTargets(markdown: string): string[] {
  return [...withoutCode(markdown).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map(
    (match) => match[1] ?? '',
  );
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
export function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

function anchors(markdown: string): Set<string> {
  return new Set(
    [...withoutCode(markdown).matchAll(/^#{1,6} (.+)$/gm)].map((match) => headingAnchor(match[1] ?? '')),
  );
}

const documents = await markdownDocuments();

describe('documentation links', () => {
  it('finds the documents and their links', () => {
    expect(documents).toEqual(
      expect.arrayContaining(['README.md', 'CONTRIBUTING.md', 'docs/paying.md', 'bench/README.md']),
    );
    expect(linkTargets('[a](docs/x.md#y) `[b](no.md)` ![c](img.png "t")')).toEqual([
      'docs/x.md#y',
      'img.png',
    ]);
    expect(headingAnchor("The CA's renewal window (ACME Renewal Information, RFC 9773)")).toBe(
      'the-cas-renewal-window-acme-renewal-information-rfc-9773',
    );
    expect(headingAnchor('When something fails: what the payer gets')).toBe(
      'when-something-fails-what-the-payer-gets',
    );
  });

  it.each(documents)('%s: every relative link resolves', (document) => {
    const text = readFileSync(join(REPO_ROOT, document), 'utf8');
    for (const target of linkTargets(text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:: not in the repository
      const [path = '', fragment] = target.split('#');
      const file = path === '' ? document : normalize(join(dirname(document), decodeURIComponent(path)));
      expect(existsSync(join(REPO_ROOT, file)), `${document}: ${target}`).toBe(true);
      if (fragment !== undefined && file.endsWith('.md'))
        expect(anchors(readFileSync(join(REPO_ROOT, file), 'utf8')), `${document}: ${target}`).toContain(
          fragment,
        );
    }
  });

  it('the documents the page at / and /llms.txt name exist, and the README links each', () => {
    const readme = linkTargets(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8'));
    for (const { path } of DOCUMENTATION) {
      expect(existsSync(join(REPO_ROOT, path)), path).toBe(true);
      expect(readme, path).toContain(path);
    }
  });
});
