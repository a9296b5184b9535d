/**
 * The sign-in nonces of the wallet ledger on Node: SQLite (one instance) and a real redis-server (a
 * fleet). A nonce is accepted once; one accepted for a payment is accepted again for that payment
 * and for nothing else. A SQLite file written before nonces were bound opens and keeps what it held.
 * The Durable Object's ledger is exercised end to end in test/e2e/edge-sign-in.test.ts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisWalletLedger } from '../../src/redis/wallet-ledger.ts';
import { openSqliteWalletLedger } from '../../src/sqlite/wallet-ledger.ts';
import type { WalletLedger } from '../../src/watches/wallet-ledger.ts';
import { type RedisServer, startRedisServer } from '../world/redis-server.ts';

const LATER = () => Date.now() + 60_000;

async function expectBoundOnce(ledger: WalletLedger, nonce: string): Promise<void> {
  expect(await ledger.nonceHolder(nonce)).toBeNull();
  expect(await ledger.acceptNonce(nonce, LATER(), '0xpayer:0x01')).toBe(true);
  expect(await ledger.nonceHolder(nonce)).toBe('0xpayer:0x01');
  // The same paid call again (a lost answer fetched again, on any instance): let in.
  expect(await ledger.acceptNonce(nonce, LATER(), '0xpayer:0x01')).toBe(true);
  // Another payment, or a free call, with the same proof: refused.
  expect(await ledger.acceptNonce(nonce, LATER(), '0xpayer:0x02')).toBe(false);
  expect(await ledger.acceptNonce(nonce, LATER())).toBe(false);
  // A nonce a free call spent is no payment's.
  expect(await ledger.acceptNonce(`${nonce}-free`, LATER())).toBe(true);
  expect(await ledger.nonceHolder(`${nonce}-free`)).toBe('');
  expect(await ledger.acceptNonce(`${nonce}-free`, LATER(), '0xpayer:0x01')).toBe(false);
  expect(await ledger.acceptNonce(`${nonce}-free`, LATER(), '')).toBe(false);
}

describe('sign-in nonces in SQLite', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wallet-ledger-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('accepts a nonce once, and again only for the payment it was accepted for', async () => {
    const ledger = openSqliteWalletLedger(join(dir, 'fresh.db'));
    try {
      await expectBoundOnce(ledger, 'n1');
    } finally {
      ledger.close();
    }
  });

  it('opens a file written before nonces were bound: what it accepted stays spent, new nonces bind', async () => {
    const path = join(dir, 'older.db');
    const older = new DatabaseSync(path);
    older.exec('CREATE TABLE sign_in_nonces (nonce TEXT PRIMARY KEY, until INTEGER NOT NULL) STRICT;');
    older.prepare('INSERT INTO sign_in_nonces (nonce, until) VALUES (?, ?)').run('spent-before', LATER());
    older.close();
    const ledger = openSqliteWalletLedger(path);
    try {
      expect(await ledger.nonceHolder('spent-before')).toBe('');
      expect(await ledger.acceptNonce('spent-before', LATER(), '0xpayer:0x01')).toBe(false);
      expect(await ledger.acceptNonce('spent-before', LATER())).toBe(false);
      await expectBoundOnce(ledger, 'n2');
    } finally {
      ledger.close();
    }
    // Opened again: the column is there, nothing added twice.
    openSqliteWalletLedger(path).close();
  });
});

describe('sign-in nonces in Redis', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  }, 60_000);
  afterAll(() => redis?.close());

  it('accepts a nonce once, and again only for the payment it was accepted for', async () => {
    await expectBoundOnce(redisWalletLedger(redis.client), 'n1');
  });
});
