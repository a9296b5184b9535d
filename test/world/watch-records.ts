/** Watch records as the stores keep them, for the store tests: a pending 30-day watch with a webhook. */
import type { WatchRecord } from '../../src/watches/model.ts';

/** The stores' tests' clock. */
export const STORE_NOW = Date.parse('2026-11-27T00:00:00Z');

export function watchRecord(id: string, overrides: Partial<WatchRecord> = {}): WatchRecord {
  return {
    id,
    domain: 'example.com',
    days: 30,
    webhookUrl: 'https://hooks.example.net/in',
    status: 'pending',
    createdAt: STORE_NOW,
    expiresAt: STORE_NOW + 30 * 86_400_000,
    intervalS: 21_600,
    nextCheckAt: STORE_NOW + 21_600_000,
    dueAt: STORE_NOW + 21_600_000,
    conditions: [],
    lastCheckedAt: STORE_NOW,
    lastResult: null,
    failures: 0,
    endingSent: false,
    webhookGone: false,
    eventSeq: 0,
    version: 0,
    ...overrides,
  };
}
