/**
 * `npm run figures`: runs the unit project as configured and once more with every file isolated,
 * and writes what it measured into CONTRIBUTING.md's figures block (between the `figures:unit`
 * markers), so the document's figures are the last run's, never typed by hand.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCollected } from './run-collected.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const CONTRIBUTING = join(ROOT, 'CONTRIBUTING.md');
const START = '<!-- figures:unit: written by `npm run figures` (scripts/unit-figures.ts) -->';
const END = '<!-- /figures:unit -->';
const WIDTH = 110;

export interface UnitRun {
  files: number;
  tests: number;
  /** From start to end of the run, in milliseconds. */
  wallMs: number;
  /** The tests' own durations, summed. */
  testsMs: number;
}

interface VitestJson {
  numTotalTests: number;
  testResults: { assertionResults: { duration?: number | null }[] }[];
}

/** Runs the unit project (`extra` are Vitest's flags) and reads its JSON report. */
async function runUnit(extra: string[]): Promise<UnitRun> {
  const report = join(tmpdir(), `unit-figures-${process.pid}-${Date.now()}.json`);
  const started = performance.now();
  const { code, output } = await runCollected(
    process.execPath,
    [
      join(ROOT, 'node_modules/vitest/vitest.mjs'),
      'run',
      '--project',
      'unit',
      '--reporter=json',
      `--outputFile=${report}`,
      ...extra,
    ],
    { cwd: ROOT, env: process.env },
  );
  const wallMs = performance.now() - started;
  if (code !== 0) throw new Error(`the unit project failed; no figures written:\n${output}`);
  const json = JSON.parse(await readFile(report, 'utf8')) as VitestJson;
  await rm(report, { force: true });
  const testsMs = json.testResults
    .flatMap((file) => file.assertionResults)
    .reduce((sum, test) => sum + (test.duration ?? 0), 0);
  return { files: json.testResults.length, tests: json.numTotalTests, wallMs, testsMs };
}

const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;

/** The figures paragraph, wrapped at Prettier's print width. */
export function figuresText(
  configured: UnitRun,
  isolated: UnitRun,
  machine: { cores: number; load: number },
): string {
  const text =
    `Duration of the unit project at the last \`npm run figures\` (${machine.cores} cores, load average ` +
    `${machine.load.toFixed(1)}): ${seconds(configured.wallMs)} for ${configured.files} files and ` +
    `${configured.tests.toLocaleString('en-US')} tests (${seconds(configured.testsMs)} of it in the tests ` +
    `themselves; ${seconds(isolated.wallMs)} when every file loads its modules afresh, hence ` +
    `\`isolate: false\` there).`;
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  return [...lines, line].join('\n');
}

/** `document` with the text between the markers replaced by `figures`. */
export function withFigures(document: string, figures: string): string {
  const start = document.indexOf(START);
  const end = document.indexOf(END);
  if (start < 0 || end < start) throw new Error(`CONTRIBUTING.md has no ${START} … ${END} block`);
  // The blank line after the opening comment is Prettier's.
  return `${document.slice(0, start + START.length)}\n\n${figures}\n${document.slice(end)}`;
}

if (import.meta.main) {
  const load = loadavg()[0] ?? 0;
  const configured = await runUnit([]);
  const isolated = await runUnit(['--isolate']);
  const figures = figuresText(configured, isolated, { cores: cpus().length, load });
  await writeFile(CONTRIBUTING, withFigures(await readFile(CONTRIBUTING, 'utf8'), figures));
  process.stdout.write(`${figures}\n`);
}
