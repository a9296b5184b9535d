/**
 * UTS #46 conformance: every line of IdnaTestV2.txt through the product's IDNA layer
 * (`lookupToAscii`) under the lookup profile. A line whose toAsciiN status lists an error must be
 * refused; any other must give exactly the toAsciiN string. A line may differ only by one of the two
 * documented deviations of src/domain/idna.ts; anything else fails the suite.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { lookupToAscii } from '../../../src/domain/idna.ts';

const SUITE = new URL('../../fixtures/suites/IdnaTestV2-17.0.0.txt', import.meta.url);
const text = readFileSync(SUITE, 'utf8');

interface SuiteLine {
  lineNumber: number;
  source: string;
  toAsciiN: string;
  status: string[];
}

const ESCAPE = /\\u([0-9A-Fa-f]{4})|\\x\{([0-9A-Fa-f]+)\}/g;

/** A column: undefined when blank (inherits), '' for `""`, else the text with escapes expanded. */
function column(raw: string | undefined): string | undefined {
  const value = (raw ?? '').trim();
  if (value === '') return undefined;
  if (value === '""') return '';
  return value.replace(ESCAPE, (_, short?: string, long?: string) =>
    String.fromCodePoint(Number.parseInt(short ?? long ?? '', 16)),
  );
}

function statusColumn(raw: string | undefined): string[] | undefined {
  const value = (raw ?? '').trim();
  if (value === '') return undefined;
  return value
    .replace(/[[\]]/g, '')
    .split(',')
    .map((code) => code.trim())
    .filter((code) => code !== '');
}

/** The header's inheritance rules: blank toUnicode = source, blank toAsciiN = toUnicode, … */
function parseSuite(content: string): SuiteLine[] {
  return content.split('\n').flatMap((line, index) => {
    const data = line.replace(/#.*$/, '');
    if (data.trim() === '') return [];
    const columns = data.split(';');
    const source = column(columns[0]) ?? '';
    const toUnicode = column(columns[1]) ?? source;
    const toUnicodeStatus = statusColumn(columns[2]) ?? [];
    return [
      {
        lineNumber: index + 1,
        source,
        toAsciiN: column(columns[3]) ?? toUnicode,
        status: statusColumn(columns[4]) ?? toUnicodeStatus,
      },
    ];
  });
}

type Deviation = 'root dot' | 'R-LDH label';

/** An all-ASCII label, not an A-label, with `--` in positions 3–4 (RFC 5890 §2.3.1 R-LDH). */
const isRldh = (label: string): boolean => !label.startsWith('xn--') && label.slice(2, 4) === '--';

/**
 * Which documented deviation explains `actual` (accepted) where the line expects an error; null
 * when none does. The output must still be the file's toAsciiN string (less the root dot).
 */
function deviationOf(line: SuiteLine, actual: string | null): Deviation | null {
  if (actual === null) return null;
  const rootDot = line.toAsciiN.endsWith('.') && !line.toAsciiN.slice(0, -1).split('.').includes('');
  const expected = rootDot ? line.toAsciiN.slice(0, -1) : line.toAsciiN;
  if (actual !== expected) return null;
  const rldh = expected.split('.').some(isRldh);
  const unexplained = line.status.filter((code) => !(code === 'A4_2' && rootDot) && !(code === 'V2' && rldh));
  if (unexplained.length > 0) return null;
  return line.status.includes('V2') ? 'R-LDH label' : 'root dot';
}

describe('UTS #46 IdnaTestV2 (Unicode 17.0.0)', () => {
  const lines = parseSuite(text);

  it('is the Unicode version the tr46 package implements', () => {
    const version = /^# Version: (\S+)$/m.exec(text)?.[1];
    const tr46 = createRequire(import.meta.url)('tr46/package.json') as { unicodeVersion: string };
    expect(version).toBe('17.0.0');
    expect(tr46.unicodeVersion).toBe(version);
  });

  it('agrees with every line under the lookup profile, less documented deviations', () => {
    const disagreements: string[] = [];
    const deviations = new Map<Deviation, number>();
    for (const line of lines) {
      const actual = lookupToAscii(line.source);
      const agrees = line.status.length > 0 ? actual === null : actual === line.toAsciiN;
      if (agrees) continue;
      const deviation = deviationOf(line, actual);
      if (deviation === null) {
        disagreements.push(
          `line ${line.lineNumber}: ${JSON.stringify(line.source)} → ${JSON.stringify(actual)}, expected ${line.status.length > 0 ? `[${line.status.join(', ')}]` : line.toAsciiN}`,
        );
      } else {
        deviations.set(deviation, (deviations.get(deviation) ?? 0) + 1);
      }
    }
    const deviated = [...deviations.values()].reduce((sum, count) => sum + count, 0);
    const agreeing = lines.length - disagreements.length;
    const summary = [...deviations].map(([name, count]) => `${count} ${name}`).join(', ');
    // eslint-disable-next-line no-console -- the suite's agreement count belongs in the test output
    console.log(
      `UTS #46 IdnaTestV2 17.0.0: ${agreeing}/${lines.length} lines agree (${agreeing - deviated} exactly, ${deviated} by documented deviation: ${summary})`,
    );
    expect(lines.length).toBe(6391);
    expect(disagreements).toEqual([]);
    // Each deviation is a rule of src/domain/idna.ts; a change in these counts is a change in policy.
    expect(Object.fromEntries(deviations)).toEqual({ 'root dot': 68, 'R-LDH label': 8 });
  });

  it('refuses the shapes the product used to accept', () => {
    // Bidi rule across labels (RFC 5893 §2): a label with an LTR start next to an RTL label.
    expect(lookupToAscii('0à.\u05d0.com')).toBeNull();
    // A U-label that ends or starts with a hyphen, hidden behind its A-label.
    expect(lookupToAscii('xn--ej0b.xn----d87b.com')).toBeNull();
    expect(lookupToAscii('xn--8sb.xn-----iw2a.com')).toBeNull();
    // `--` in positions 3–4 of a U-label.
    expect(lookupToAscii('ab--ü.com')).toBeNull();
  });

  it('accepts R-LDH ASCII labels and drops the root dot', () => {
    expect(lookupToAscii('r3---sn-abc.googlevideo.com')).toBe('r3---sn-abc.googlevideo.com');
    expect(lookupToAscii('Example.COM.')).toBe('example.com');
    expect(lookupToAscii('example.com..')).toBeNull();
  });
});
