/**
 * The `WalletLedger` of one Node instance without `REDIS_URL`: two tables beside the watches in the
 * SQLite file at `WATCH_DB_PATH` (its own connection; WAL lets both write in turn).
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { WalletLedger } from '../watches/wallet-ledger.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS wallet_watches (
  payer TEXT NOT NULL,
  bought_at INTEGER NOT NULL,
  id TEXT NOT NULL,
  PRIMARY KEY (payer, bought_at, id)
) STRICT;
CREATE UNIQUE INDEX IF NOT EXISTS wallet_watches_id ON wallet_watches (id);
CREATE TABLE IF NOT EXISTS sign_in_nonces (
  nonce TEXT PRIMARY KEY,
  until INTEGER NOT NULL,
  bound_to TEXT NOT NULL DEFAULT ''
) STRICT;
CREATE INDEX IF NOT EXISTS sign_in_nonces_until ON sign_in_nonces (until);
`;

export function openSqliteWalletLedger(path: string, now = Date.now): WalletLedger & { close(): void } {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new DatabaseSync(path);
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;');
  db.exec(SCHEMA);
  addBoundTo(db);
  const insertEntry = db.prepare(
    'INSERT OR IGNORE INTO wallet_watches (payer, bought_at, id) VALUES (?, ?, ?)',
  );
  const newest = db.prepare(
    'SELECT id, bought_at FROM wallet_watches WHERE payer = ? ORDER BY bought_at DESC, id DESC LIMIT ?',
  );
  const older = db.prepare(
    'SELECT id, bought_at FROM wallet_watches WHERE payer = ? AND (bought_at < ? OR (bought_at = ? AND id < ?)) ORDER BY bought_at DESC, id DESC LIMIT ?',
  );
  const forget = db.prepare('DELETE FROM sign_in_nonces WHERE until < ?');
  const accept = db.prepare('INSERT OR IGNORE INTO sign_in_nonces (nonce, until, bound_to) VALUES (?, ?, ?)');
  const holderOf = db.prepare('SELECT bound_to FROM sign_in_nonces WHERE nonce = ? AND until >= ?');
  const nonceHolder = (nonce: string) => {
    const row = holderOf.get(nonce, now());
    return row ? String(row.bound_to) : null;
  };

  return {
    async add(payer, { id, boughtAt }) {
      insertEntry.run(payer, boughtAt, id);
    },
    async list(payer, after, limit) {
      const rows = after
        ? older.all(payer, after.boughtAt, after.boughtAt, after.id, limit)
        : newest.all(payer, limit);
      return rows.map((row) => ({ id: String(row.id), boughtAt: Number(row.bought_at) }));
    },
    async acceptNonce(nonce, untilMs, boundTo = '') {
      forget.run(now());
      if (accept.run(nonce, untilMs, boundTo).changes === 1) return true;
      return boundTo !== '' && nonceHolder(nonce) === boundTo;
    },
    nonceHolder: async (nonce) => nonceHolder(nonce),
    close: () => db.close(),
  };
}

/** A file written before nonces were bound to a payment gets the column (each unbound). */
function addBoundTo(db: DatabaseSync): void {
  const columns = db.prepare("SELECT name FROM pragma_table_info('sign_in_nonces')").all();
  if (columns.some((column) => column.name === 'bound_to')) return;
  db.exec("ALTER TABLE sign_in_nonces ADD COLUMN bound_to TEXT NOT NULL DEFAULT ''");
}
