/**
 * The project's Markdown documents, read by the tests that check what documents say: their links,
 * the commands and snippets they show, the packages they tell a reader to run.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { REPO_ROOT } from './run-command.ts';

const TOP_LEVEL = ['README.md', 'CONTRIBUTING.md', 'CHANGELOG.md'];
const FOLDERS = ['docs', 'bench', 'examples', 'packages/client'];
const NOT_DOCUMENTS = /(^|\/)(node_modules|dist)\//;

/** Every Markdown document, as a path relative to the repository root, README.md first. */
export async function markdownDocuments(): Promise<string[]> {
  const nested = await Promise.all(
    FOLDERS.map(async (folder) =>
      (await readdir(join(REPO_ROOT, folder), { recursive: true }))
        .map((file) => `${folder}/${file}`)
        .filter((file) => file.endsWith('.md') && !NOT_DOCUMENTS.test(file)),
    ),
  );
  return [...TOP_LEVEL, ...nested.flat().sort()];
}
