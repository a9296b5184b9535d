/**
 * Development only (production requires `WATCH_SECRET_KEY`): a key generated once and kept beside
 * the embedded store, readable by its owner alone, so tokens and webhook secrets survive restarts.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const KEY_FILE_NAME = 'watch-secret.key';

/** The key in the file beside `dbPath`, created when missing. */
export function keyBeside(dbPath: string): string {
  const dir = dbPath === ':memory:' ? '.' : dirname(dbPath);
  const path = join(dir, KEY_FILE_NAME);
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    mkdirSync(dir, { recursive: true });
    const key = randomBytes(32).toString('base64url');
    // `wx`: two processes starting at once keep the first one's key.
    try {
      writeFileSync(path, `${key}\n`, { mode: 0o600, flag: 'wx' });
      return key;
    } catch {
      return readFileSync(path, 'utf8').trim();
    }
  }
}
