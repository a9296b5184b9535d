/**
 * The payment records of one Node instance without `REDIS_URL`, in embedded SQLite (`node:sqlite`):
 * settling records and lost results (`Undelivered`), and the answers kept for payment identifiers
 * (`IdentifiedAnswers`). The chain remembers a payment across a restart; so must the process, or a
 * payer charged just before a `kill -9` could never claim the result the supervisor's restart forgot.
 *
 * The file sits beside `WATCH_DB_PATH` (`payments.db`), in WAL mode with `synchronous=NORMAL`: a
 * committed write survives the process being killed. It keeps what the Redis stores keep
 * (`redis/authorizations.ts`, `redis/identified-answers.ts`) and no more: a digest of the payment
 * signature, never the signature. Every row expires with its window; a full table refuses new
 * entries (the paid call answers 503, uncharged) rather than drop one it holds, as Redis under
 * `noeviction` does.
 */
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { SettleResponse } from '@x402/core/types';
import {
  begun,
  IDENTIFIED_LEASE_MS,
  type IdentifiedAnswers,
  type StoredAnswer,
} from '../payments/server/identified-answers.ts';
import {
  claimOf,
  REDELIVERY_WINDOW_MS,
  SETTLING_RECORD_MS,
  signatureDigest,
  type Undelivered,
} from '../payments/server/undelivered.ts';

export const PAYMENTS_DB_FILE_NAME = 'payments.db';

/** Most live rows per table (as many as the process-memory stores keep). */
export const MAX_PAYMENT_RECORDS = 10_000;
/** Most bytes of stored answers in all (as the process-memory store of identified answers). */
const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS undelivered (
  key TEXT PRIMARY KEY,
  signature TEXT NOT NULL,
  resource TEXT,
  receipt TEXT,
  until INTEGER NOT NULL,
  delivered INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX IF NOT EXISTS undelivered_until ON undelivered (until);
CREATE TABLE IF NOT EXISTS identified_answers (
  key TEXT PRIMARY KEY,
  binding TEXT NOT NULL,
  token TEXT,
  answer TEXT,
  until INTEGER NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS identified_answers_until ON identified_answers (until);
`;

/** The payment records' file beside the watch store's `dbPath` (`:memory:` stays in memory). */
export function paymentsDbBeside(dbPath: string): string {
  return dbPath === ':memory:' ? dbPath : join(dirname(dbPath), PAYMENTS_DB_FILE_NAME);
}

export interface SqlitePaymentRecords {
  undelivered: Undelivered;
  identified: IdentifiedAnswers;
  close(): void;
}

/** A table refused a new entry: it holds as many live ones as it may. */
export class PaymentRecordsFull extends Error {
  constructor(table: string) {
    super(`the ${table} table of the payment records is full`);
  }
}

export interface PaymentRecordsOptions {
  /** The clock (tests of the windows). */
  now?: () => number;
  /** Most live rows per table; default `MAX_PAYMENT_RECORDS`. */
  maxRecords?: number;
}

/** Opens (creating when needed) the records at `path`. */
export function openSqlitePaymentRecords(
  path: string,
  { now = Date.now, maxRecords = MAX_PAYMENT_RECORDS }: PaymentRecordsOptions = {},
): SqlitePaymentRecords {
  const db = openDatabase(path);
  return {
    undelivered: lostResults(db, now, maxRecords),
    identified: identifiedAnswers(db, now, maxRecords),
    close: () => db.close(),
  };
}

/** The database at `path` with the schema in place and the identifiers of a previous process free. */
function openDatabase(path: string): DatabaseSync {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new DatabaseSync(path);
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;');
  db.exec(SCHEMA);
  // A file written before handed-over results were kept lacks the column.
  if (!db.prepare('SELECT 1 FROM pragma_table_info(?) WHERE name = ?').get('undelivered', 'delivered')) {
    db.exec('ALTER TABLE undelivered ADD COLUMN delivered INTEGER NOT NULL DEFAULT 0');
  }
  // One process owns this file: an identifier held by a call of a killed predecessor is free again
  // now, not once its lease runs out. Settling records stay: they are what that call left to claim.
  db.exec('DELETE FROM identified_answers WHERE answer IS NULL');
  return db;
}

/** The settling records and lost results, in the `undelivered` table. */
function lostResults(db: DatabaseSync, now: () => number, maxRecords: number): Undelivered {
  const lost = {
    purge: db.prepare('DELETE FROM undelivered WHERE until <= ?'),
    count: db.prepare('SELECT COUNT(*) AS n FROM undelivered WHERE key <> ?'),
    put: db.prepare(
      'INSERT OR REPLACE INTO undelivered (key, signature, resource, receipt, until, delivered) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    get: db.prepare(
      'SELECT signature, resource, receipt, delivered FROM undelivered WHERE key = ? AND until > ?',
    ),
    drop: db.prepare('DELETE FROM undelivered WHERE key = ?'),
  };
  return {
    async settling(key, signature, resource) {
      lost.purge.run(now());
      if (Number(lost.count.get(key)?.n) >= maxRecords) throw new PaymentRecordsFull('undelivered');
      lost.put.run(key, signatureDigest(signature), resource, null, now() + SETTLING_RECORD_MS, 0);
    },
    async settled(key) {
      lost.drop.run(key);
    },
    async remember(key, signature, receipt, delivered = false) {
      lost.put.run(
        key,
        signatureDigest(signature),
        null,
        JSON.stringify(receipt),
        now() + REDELIVERY_WINDOW_MS,
        delivered ? 1 : 0,
      );
    },
    async claim(key, signature, resource) {
      const row = lost.get.get(key, now());
      const entry = row
        ? row.receipt === null
          ? { signature: String(row.signature), resource: String(row.resource) }
          : {
              signature: String(row.signature),
              receipt: JSON.parse(String(row.receipt)) as SettleResponse,
              delivered: row.delivered === 1,
            }
        : undefined;
      return claimOf(entry, signatureDigest(signature), resource);
    },
  };
}

/** The answers kept by payment identifier, in the `identified_answers` table. */
function identifiedAnswers(db: DatabaseSync, now: () => number, maxRecords: number): IdentifiedAnswers {
  const answers = {
    purge: db.prepare('DELETE FROM identified_answers WHERE until <= ?'),
    usage: db.prepare(
      'SELECT COUNT(*) AS n, TOTAL(LENGTH(answer)) AS bytes FROM identified_answers WHERE key <> ?',
    ),
    take: db.prepare(
      'INSERT OR REPLACE INTO identified_answers (key, binding, token, answer, until) VALUES (?, ?, ?, NULL, ?)',
    ),
    get: db.prepare('SELECT binding, token, answer FROM identified_answers WHERE key = ? AND until > ?'),
    answer: db.prepare(
      'UPDATE identified_answers SET token = NULL, answer = ?, until = ? WHERE key = ? AND token = ? AND until > ?',
    ),
    release: db.prepare('DELETE FROM identified_answers WHERE key = ? AND token = ?'),
  };
  return {
    async begin(key, binding) {
      const row = answers.get.get(key, now());
      const found = begun(
        row
          ? {
              binding: String(row.binding),
              ...(row.answer === null ? {} : { answer: JSON.parse(String(row.answer)) as StoredAnswer }),
              until: Infinity,
            }
          : null,
        binding,
      );
      if (found) return found;
      answers.purge.run(now());
      const usage = answers.usage.get(key);
      if (Number(usage?.n) >= maxRecords || Number(usage?.bytes) >= MAX_ANSWER_BYTES)
        throw new PaymentRecordsFull('identified_answers');
      const token = crypto.randomUUID();
      answers.take.run(key, binding, token, now() + IDENTIFIED_LEASE_MS);
      return { kind: 'begun', token };
    },
    async answer(key, token, stored) {
      answers.answer.run(JSON.stringify(stored), now() + REDELIVERY_WINDOW_MS, key, token, now());
    },
    async release(key, token) {
      answers.release.run(key, token);
    },
  };
}
