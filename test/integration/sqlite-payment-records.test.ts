/**
 * The payment records of a single Node instance (`src/sqlite/payment-records.ts`) in a real SQLite
 * file: what one process wrote, the next one opened on the same file finds, within the windows the
 * Redis stores keep, with no more than they keep (a digest, never the payment signature).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SettleResponse } from '@x402/core/types';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IDENTIFIED_LEASE_MS } from '../../src/payments/server/identified-answers.ts';
import { REDELIVERY_WINDOW_MS, SETTLING_RECORD_MS } from '../../src/payments/server/undelivered.ts';
import {
  openSqlitePaymentRecords,
  PaymentRecordsFull,
  paymentsDbBeside,
  type SqlitePaymentRecords,
} from '../../src/sqlite/payment-records.ts';

const KEY = '0x1111111111111111111111111111111111111111:0xabc';
const SIGNATURE = `0x${'5a'.repeat(65)}`;
const RESOURCE = 'https://checks.example.test/v1/cert-expiry';
const RECEIPT: SettleResponse = {
  success: true,
  transaction: `0x${'77'.repeat(32)}`,
  network: 'eip155:8453',
  payer: '0x1111111111111111111111111111111111111111',
};

/** A cap small enough to fill in a test (the default is `MAX_PAYMENT_RECORDS`, 10,000). */
const FEW = 50;

let dir: string;
let path: string;
let clock: number;
const open: SqlitePaymentRecords[] = [];
/** A process opening the file: the previous one was killed without closing it. */
const processOn = (file = path, maxRecords?: number) => {
  const records = openSqlitePaymentRecords(file, {
    now: () => clock,
    ...(maxRecords === undefined ? {} : { maxRecords }),
  });
  open.push(records);
  return records;
};

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payment-records-'));
  path = paymentsDbBeside(join(dir, 'watches.db'));
  clock = 1_800_000_000_000;
});
afterEach(async () => {
  for (const records of open.splice(0)) records.close();
  await rm(dir, { recursive: true, force: true });
});

describe('settling records and lost results', () => {
  it('sit beside the watch store, in payments.db', () => {
    expect(path).toBe(join(dir, 'payments.db'));
    expect(paymentsDbBeside(':memory:')).toBe(':memory:');
  });

  it('a settlement begun before a kill is found by the next process, for that signature and resource only', async () => {
    await processOn().undelivered.settling(KEY, SIGNATURE, RESOURCE);
    const next = processOn().undelivered;
    expect(await next.claim(KEY, `0x${'5b'.repeat(65)}`, RESOURCE)).toBeNull();
    expect(await next.claim(KEY, SIGNATURE, 'https://checks.example.test/v1/dns')).toBeNull();
    expect(await next.claim(KEY, SIGNATURE, RESOURCE)).toBe('interrupted');
    // It stays until the outcome is known.
    expect(await processOn().undelivered.claim(KEY, SIGNATURE, RESOURCE)).toBe('interrupted');
    await next.settled(KEY);
    expect(await processOn().undelivered.claim(KEY, SIGNATURE, RESOURCE)).toBeNull();
  });

  it('a lost result stays claimable across restarts until handed over, and the file never holds the signature', async () => {
    const first = processOn().undelivered;
    await first.settling(KEY, SIGNATURE, RESOURCE);
    await first.remember(KEY, SIGNATURE, RECEIPT);
    // A claim only reads: one that dies with its process before the result is out loses nothing.
    expect(await processOn().undelivered.claim(KEY, SIGNATURE, RESOURCE)).toEqual(RECEIPT);
    const next = processOn().undelivered;
    expect(await next.claim(KEY, SIGNATURE, RESOURCE)).toEqual(RECEIPT);
    await next.settled(KEY);
    expect(await processOn().undelivered.claim(KEY, SIGNATURE, RESOURCE)).toBeNull();

    await first.remember(KEY, SIGNATURE, RECEIPT);
    for (const records of open.splice(0)) records.close();
    const bytes = (await readFile(path)).toString('latin1') + (await readWal()).toString('latin1');
    expect(bytes).not.toContain(SIGNATURE.slice(2, 40));
    expect(bytes).toContain(RECEIPT.transaction);
  });

  it('a result handed over is told apart from a lost one across restarts, for the redelivery window', async () => {
    await processOn().undelivered.remember(KEY, SIGNATURE, RECEIPT, true);
    expect(await processOn().undelivered.claim(KEY, SIGNATURE, RESOURCE)).toEqual({ delivered: RECEIPT });
    clock += REDELIVERY_WINDOW_MS;
    expect(await processOn().undelivered.claim(KEY, SIGNATURE, RESOURCE)).toBeNull();
  });

  it('expire with their windows: the longest settlement, then the redelivery window', async () => {
    const records = processOn().undelivered;
    await records.settling(KEY, SIGNATURE, RESOURCE);
    clock += SETTLING_RECORD_MS - 1;
    expect(await records.claim(KEY, SIGNATURE, RESOURCE)).toBe('interrupted');
    clock += 1;
    expect(await records.claim(KEY, SIGNATURE, RESOURCE)).toBeNull();

    await records.remember(KEY, SIGNATURE, RECEIPT);
    clock += REDELIVERY_WINDOW_MS;
    expect(await processOn().undelivered.claim(KEY, SIGNATURE, RESOURCE)).toBeNull();
  });

  it('a full table refuses a new settlement and keeps every record it holds; expired ones make room', async () => {
    const records = processOn(path, FEW).undelivered;
    for (let n = 0; n < FEW; n += 1) await records.settling(`payer:${n}`, SIGNATURE, RESOURCE);
    await expect(records.settling(KEY, SIGNATURE, RESOURCE)).rejects.toBeInstanceOf(PaymentRecordsFull);
    // A record it holds may still become a lost result.
    await records.remember('payer:0', SIGNATURE, RECEIPT);
    expect(await records.claim('payer:0', SIGNATURE, RESOURCE)).toEqual(RECEIPT);
    expect(await records.claim(`payer:${FEW - 1}`, SIGNATURE, RESOURCE)).toBe('interrupted');
    clock += SETTLING_RECORD_MS;
    await records.settling(KEY, SIGNATURE, RESOURCE);
    expect(await records.claim(KEY, SIGNATURE, RESOURCE)).toBe('interrupted');
  });

  it('keys and resources shaped like SQL, huge or Unicode are data', async () => {
    const records = processOn().undelivered;
    const key = `x'); DROP TABLE undelivered; --${'é'.repeat(10_000)}`;
    const resource = `https://checks.example.test/v1/dns?q=' OR 1=1 --`;
    await records.settling(key, SIGNATURE, resource);
    expect(await processOn().undelivered.claim(key, SIGNATURE, resource)).toBe('interrupted');
    expect(await processOn().undelivered.claim(KEY, SIGNATURE, resource)).toBeNull();
  });
});

describe('answers kept for payment identifiers', () => {
  const ANSWER = { result: { domain: 'example.com', days: 12 }, receipt: RECEIPT };

  it('an answer stored before a kill is answered by the next process; another payment is a conflict', async () => {
    const first = processOn().identified;
    const begun = await first.begin('id-1', 'binding-a');
    expect(begun.kind).toBe('begun');
    expect(await first.begin('id-1', 'binding-a')).toEqual({ kind: 'pending' });
    await first.answer('id-1', (begun as { token: string }).token, ANSWER);
    expect(await processOn().identified.begin('id-1', 'binding-a')).toEqual({
      kind: 'answered',
      answer: ANSWER,
    });
    expect(await processOn().identified.begin('id-1', 'binding-b')).toEqual({ kind: 'conflict' });
  });

  it('an identifier held by a call of a killed process is free for the next process at once', async () => {
    const killed = processOn().identified;
    await killed.begin('id-4', 'binding-a');
    const next = processOn().identified;
    const again = (await next.begin('id-4', 'binding-a')) as { kind: string; token: string };
    expect(again.kind).toBe('begun');
    await next.answer('id-4', again.token, ANSWER);
    expect((await processOn().identified.begin('id-4', 'binding-a')).kind).toBe('answered');
  });

  it('a released identifier is free again; a stale holder can neither answer nor release it', async () => {
    const records = processOn().identified;
    const first = (await records.begin('id-2', 'binding-a')) as { token: string };
    await records.release('id-2', first.token);
    const second = (await records.begin('id-2', 'binding-b')) as { kind: string; token: string };
    expect(second.kind).toBe('begun');
    await records.answer('id-2', first.token, ANSWER);
    await records.release('id-2', first.token);
    expect(await records.begin('id-2', 'binding-b')).toEqual({ kind: 'pending' });
  });

  it('a pending identifier is free after its lease, an answer after the redelivery window', async () => {
    const records = processOn().identified;
    const held = (await records.begin('id-3', 'binding-a')) as { token: string };
    clock += IDENTIFIED_LEASE_MS;
    await records.answer('id-3', held.token, ANSWER);
    const again = (await records.begin('id-3', 'binding-b')) as { kind: string; token: string };
    expect(again.kind).toBe('begun');
    await records.answer('id-3', again.token, ANSWER);
    clock += REDELIVERY_WINDOW_MS - 1;
    expect((await records.begin('id-3', 'binding-b')).kind).toBe('answered');
    clock += 1;
    expect((await records.begin('id-3', 'binding-c')).kind).toBe('begun');
  });

  it('a full table refuses a new identifier', async () => {
    const records = processOn(path, FEW).identified;
    for (let n = 0; n < FEW; n += 1) await records.begin(`id-${n}`, 'binding');
    await expect(records.begin('one-more', 'binding')).rejects.toBeInstanceOf(PaymentRecordsFull);
    expect(await records.begin('id-0', 'binding')).toEqual({ kind: 'pending' });
  });
});

async function readWal(): Promise<Buffer> {
  return readFile(`${path}-wal`).catch(() => Buffer.alloc(0));
}
