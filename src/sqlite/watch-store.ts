/**
 * The `WatchStore` of one Node instance without `REDIS_URL`: embedded SQLite (`node:sqlite`) at
 * `WATCH_DB_PATH`. WAL journal with `synchronous=NORMAL`: a committed transaction survives the
 * process being killed (`kill -9`); only a power cut may lose the last ones. Leases are columns,
 * so a restart finds every watch and every undelivered event where it was.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type { DeliveryAttempt, DeliveryVerdict, PendingDelivery } from '../watches/delivery.ts';
import type { WatchEvent, WatchRecord } from '../watches/model.ts';
import { HISTORY_LIMIT, type WatchCommit, type WatchStore } from '../watches/ports.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS watches (
  id TEXT PRIMARY KEY,
  status TEXT NOT NULL,
  due_at INTEGER NOT NULL,
  lease_until INTEGER NOT NULL DEFAULT 0,
  version INTEGER NOT NULL,
  record TEXT NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS watches_due ON watches (status, due_at);
CREATE TABLE IF NOT EXISTS events (
  watch_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  event TEXT NOT NULL,
  PRIMARY KEY (watch_id, seq)
) STRICT;
CREATE TABLE IF NOT EXISTS deliveries (
  event_id TEXT PRIMARY KEY,
  watch_id TEXT NOT NULL,
  url TEXT NOT NULL,
  body TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  due_at INTEGER NOT NULL,
  lease_until INTEGER NOT NULL DEFAULT 0,
  once INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX IF NOT EXISTS deliveries_due ON deliveries (due_at);
CREATE INDEX IF NOT EXISTS deliveries_watch ON deliveries (watch_id);
CREATE TABLE IF NOT EXISTS attempts (
  n INTEGER PRIMARY KEY AUTOINCREMENT,
  watch_id TEXT NOT NULL,
  attempt TEXT NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS attempts_watch ON attempts (watch_id, n);
`;

type Row = Record<string, unknown>;

const recordOf = (row: Row | undefined): WatchRecord | null =>
  row ? (JSON.parse(String(row.record)) as WatchRecord) : null;

const deliveryOf = (row: Row): PendingDelivery => ({
  eventId: String(row.event_id),
  watchId: String(row.watch_id),
  url: String(row.url),
  body: String(row.body),
  attempts: Number(row.attempts),
  dueAt: Number(row.due_at),
  ...(Number(row.once) === 1 ? { once: true } : {}),
});

/** Active watches due by `now` and under no lease, leased until `now + leaseMs`, earliest first. */
const CLAIM_DUE_WATCHES = `UPDATE watches SET lease_until = ? WHERE id IN (
  SELECT id FROM watches WHERE status = 'active' AND due_at <= ? AND lease_until <= ? ORDER BY due_at LIMIT ?
) RETURNING record`;

/** A watch's latest events after a sequence number, oldest of them first. */
const LATEST_EVENTS_AFTER =
  'SELECT event FROM (SELECT seq, event FROM events WHERE watch_id = ? AND seq > ? ORDER BY seq DESC LIMIT ?) ORDER BY seq';

/** A watch's latest delivery attempts, oldest of them first. */
const LATEST_ATTEMPTS =
  'SELECT attempt FROM (SELECT n, attempt FROM attempts WHERE watch_id = ? ORDER BY n DESC LIMIT ?) ORDER BY n';

/** Due deliveries, one per watch (its earliest due), none of a watch with a delivery under a lease. */
const CLAIM_DUE_DELIVERIES = `UPDATE deliveries SET lease_until = ? WHERE event_id IN (
  SELECT d.event_id FROM deliveries d
  WHERE d.due_at <= ?
    AND NOT EXISTS (SELECT 1 FROM deliveries b WHERE b.watch_id = d.watch_id AND b.lease_until > ?)
    AND d.event_id = (SELECT e.event_id FROM deliveries e WHERE e.watch_id = d.watch_id ORDER BY e.due_at, e.event_id LIMIT 1)
  ORDER BY d.due_at LIMIT ?
) RETURNING *`;

/** When the next delivery may be claimed: its due time, or its watch's latest lease when later. */
const NEXT_DELIVERY_AT = `SELECT MIN(MAX(d.due_at, (SELECT MAX(b.lease_until) FROM deliveries b WHERE b.watch_id = d.watch_id))) AS at
FROM deliveries d`;

/** Pending watches opened by a time, oldest first. */
const PENDING_OPENED_BY = `SELECT record FROM watches WHERE status = 'pending' AND json_extract(record, '$.createdAt') <= ?
ORDER BY json_extract(record, '$.createdAt') LIMIT ?`;

/** The open database's statement for `text`, prepared once: what the store's steps share. */
type Sql = (text: string) => StatementSync;

/** Opens (creating when needed) the store at `path`; `:memory:` for tests that need no file. */
export function openSqliteWatchStore(path: string): WatchStore {
  const db = openDatabase(path);
  const sql = preparedOnce(db);

  return {
    async insert(watch) {
      return transaction(db, () => {
        sql('INSERT OR IGNORE INTO watches (id, status, due_at, version, record) VALUES (?, ?, ?, ?, ?)').run(
          watch.id,
          ...write(watch),
        );
        return watchById(sql, watch.id) as WatchRecord;
      });
    },

    async get(id) {
      return watchById(sql, id);
    },

    async discardPending(id) {
      return sql("DELETE FROM watches WHERE id = ? AND status = 'pending'").run(id).changes === 1;
    },

    async commit(commit) {
      return transaction(db, () => commitTransition(sql, commit));
    },

    async claimDue(now, limit, leaseMs) {
      const rows = sql(CLAIM_DUE_WATCHES).all(now + leaseMs, now, now, limit);
      return rows.map((row) => recordOf(row) as WatchRecord).sort((a, b) => a.dueAt - b.dueAt);
    },

    async nextDueAt() {
      return timeOf(
        sql("SELECT MIN(MAX(due_at, lease_until)) AS at FROM watches WHERE status = 'active'").get(),
      );
    },

    async events(watchId, afterSeq, limit) {
      const rows = sql(LATEST_EVENTS_AFTER).all(watchId, afterSeq, limit);
      return rows.map((row) => JSON.parse(String(row.event)) as WatchEvent);
    },

    async attempts(watchId, limit) {
      const rows = sql(LATEST_ATTEMPTS).all(watchId, limit);
      return rows.map((row) => JSON.parse(String(row.attempt)) as DeliveryAttempt);
    },

    async claimDeliveries(now, limit, leaseMs) {
      const rows = sql(CLAIM_DUE_DELIVERIES).all(now + leaseMs, now, now, limit);
      return rows.map(deliveryOf).sort((a, b) => a.dueAt - b.dueAt);
    },

    async nextDeliveryAt() {
      return timeOf(sql(NEXT_DELIVERY_AT).get());
    },

    async recordAttempt(delivery: PendingDelivery, attempt: DeliveryAttempt, verdict: DeliveryVerdict) {
      transaction(db, () => recordAttemptIn(sql, delivery, attempt, verdict));
    },

    async pendingOpenedBy(openedBy, limit) {
      const rows = sql(PENDING_OPENED_BY).all(openedBy, limit);
      return rows.map((row) => recordOf(row) as WatchRecord);
    },

    async countByStatus() {
      const counts = { pending: 0, active: 0, ended: 0, cancelled: 0 };
      for (const row of sql('SELECT status, COUNT(*) AS n FROM watches GROUP BY status').all()) {
        counts[String(row.status) as keyof typeof counts] = Number(row.n);
      }
      return counts;
    },

    async close() {
      db.close();
    },
  };
}

/** The database at `path` with the schema in place and the leases of a previous process void. */
function openDatabase(path: string): DatabaseSync {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new DatabaseSync(path);
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;');
  db.exec(SCHEMA);
  // A database written before `once` existed gains the column.
  if (!db.prepare('SELECT 1 FROM pragma_table_info(?) WHERE name = ?').get('deliveries', 'once'))
    db.exec('ALTER TABLE deliveries ADD COLUMN once INTEGER NOT NULL DEFAULT 0');
  // One process owns this file: the leases of a killed predecessor are void, so the check or the
  // delivery it left unrecorded resumes now, not once its lease runs out.
  db.exec('UPDATE watches SET lease_until = 0; UPDATE deliveries SET lease_until = 0;');
  return db;
}

function preparedOnce(db: DatabaseSync): Sql {
  const statements = new Map<string, StatementSync>();
  return (text) => {
    let statement = statements.get(text);
    if (!statement) {
      statement = db.prepare(text);
      statements.set(text, statement);
    }
    return statement;
  };
}

function transaction<T>(db: DatabaseSync, work: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    const value = work();
    db.exec('COMMIT');
    return value;
  } catch (error) {
    db.exec('ROLLBACK');
    throw error;
  }
}

const watchById = (sql: Sql, id: string): WatchRecord | null =>
  recordOf(sql('SELECT record FROM watches WHERE id = ?').get(id));

const write = (watch: WatchRecord) =>
  [watch.status, watch.dueAt, watch.version, JSON.stringify(watch)] as const;

/** A `MIN(…) AS at` row's time; null when no row matched. */
const timeOf = (row: Row | undefined): number | null =>
  row?.at === null || row?.at === undefined ? null : Number(row.at);

/** A transition of a watch still at `expectedVersion`, inside the caller's transaction; false when it moved on. */
function commitTransition(
  sql: Sql,
  { watch, expectedVersion, events, deliveries, dropPending }: WatchCommit,
): boolean {
  const stored = watchById(sql, watch.id);
  if (!stored || stored.version !== expectedVersion) return false;
  if (dropPending) sql('DELETE FROM deliveries WHERE watch_id = ?').run(watch.id);
  // A 410 recorded while this transition was computed stays recorded.
  const gone = stored.webhookGone && !watch.webhookGone;
  const next = gone ? { ...watch, webhookGone: true } : watch;
  sql('UPDATE watches SET status = ?, due_at = ?, version = ?, record = ?, lease_until = 0 WHERE id = ?').run(
    ...write(next),
    watch.id,
  );
  appendEvents(sql, events);
  enqueue(sql, gone ? deliveries.filter((d) => d.url !== stored.webhookUrl) : deliveries);
  return true;
}

/** Records a delivery's attempt and applies its verdict, inside the caller's transaction. */
function recordAttemptIn(
  sql: Sql,
  delivery: PendingDelivery,
  attempt: DeliveryAttempt,
  verdict: DeliveryVerdict,
): void {
  sql('INSERT INTO attempts (watch_id, attempt) VALUES (?, ?)').run(
    delivery.watchId,
    JSON.stringify(attempt),
  );
  trim(sql, 'attempts', delivery.watchId);
  switch (verdict.kind) {
    case 'delivered':
    case 'given_up':
      sql('DELETE FROM deliveries WHERE event_id = ?').run(delivery.eventId);
      break;
    case 'retry':
      sql('UPDATE deliveries SET attempts = ?, due_at = ?, lease_until = 0 WHERE event_id = ?').run(
        delivery.attempts + 1,
        verdict.dueAt,
        delivery.eventId,
      );
      break;
    case 'gone': {
      sql('DELETE FROM deliveries WHERE watch_id = ? AND url = ?').run(delivery.watchId, delivery.url);
      const watch = watchById(sql, delivery.watchId);
      if (watch && watch.webhookUrl === delivery.url) {
        sql('UPDATE watches SET record = ? WHERE id = ?').run(
          JSON.stringify({ ...watch, webhookGone: true }),
          watch.id,
        );
      }
      break;
    }
  }
}

function trim(sql: Sql, table: 'events' | 'attempts', watchId: string): void {
  const key = table === 'events' ? 'seq' : 'n';
  sql(
    `DELETE FROM ${table} WHERE watch_id = ? AND ${key} <= (SELECT ${key} FROM ${table} WHERE watch_id = ? ORDER BY ${key} DESC LIMIT 1 OFFSET ?)`,
  ).run(watchId, watchId, HISTORY_LIMIT);
}

function appendEvents(sql: Sql, events: readonly WatchEvent[]): void {
  const insert = sql('INSERT OR IGNORE INTO events (watch_id, seq, event) VALUES (?, ?, ?)');
  for (const event of events) {
    const seq = Number(event.id.slice(event.id.lastIndexOf('_') + 1));
    insert.run(event.watch_id, seq, JSON.stringify(event));
  }
  const watchId = events[0]?.watch_id;
  if (watchId) trim(sql, 'events', watchId);
}

function enqueue(sql: Sql, deliveries: readonly PendingDelivery[]): void {
  const insert = sql(
    'INSERT OR IGNORE INTO deliveries (event_id, watch_id, url, body, attempts, due_at, once) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  for (const d of deliveries)
    insert.run(d.eventId, d.watchId, d.url, d.body, d.attempts, d.dueAt, d.once ? 1 : 0);
}
