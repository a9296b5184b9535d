/**
 * The bucket stores: the in-process LRU's token arithmetic, and a shared store asked only when it
 * could say yes (a flood from one refused client does not reach it again before a token is due).
 */
import { describe, expect, it } from 'vitest';
import {
  type BucketTake,
  memoryRateBuckets,
  type RateBuckets,
  rememberRefusals,
} from '../../../src/ops/rate-buckets.ts';

const PER_MS = 1 / 1_000; // one token a second

/** `take`'s answer, which must have come at once (no `Promise`): free requests take no asynchronous step. */
function atOnce(take: BucketTake | Promise<BucketTake>): BucketTake {
  expect(take).not.toBeInstanceOf(Promise);
  return take as BucketTake;
}

describe('memoryRateBuckets', () => {
  it('starts full, refills with time up to the burst, and ignores a clock that went back', () => {
    const buckets = memoryRateBuckets();
    const takes = [0, 0, 0, 0].map(() => atOnce(buckets.take('a', 3, PER_MS, 10_000)));
    expect(takes.map((take) => take.allowed)).toEqual([true, true, true, false]);
    expect(takes.at(-1)?.tokens).toBe(0);
    expect(atOnce(buckets.take('a', 3, PER_MS, 9_000))).toEqual({ allowed: false, tokens: 0 });
    expect(atOnce(buckets.take('a', 3, PER_MS, 11_500))).toEqual({ allowed: true, tokens: 0.5 });
    expect(atOnce(buckets.take('a', 3, PER_MS, 100_000))).toEqual({ allowed: true, tokens: 2 });
    expect(atOnce(buckets.take('b', 3, PER_MS, 11_500))).toEqual({ allowed: true, tokens: 2 });
  });
});

describe('rememberRefusals', () => {
  /** An asynchronous store over the memory one, counting the calls that reach it. */
  function countingStore(): RateBuckets & { calls: number } {
    const memory = memoryRateBuckets();
    return {
      calls: 0,
      async take(client, burst, perMs, now) {
        this.calls += 1;
        await Promise.resolve();
        return memory.take(client, burst, perMs, now);
      },
    };
  }

  it('refuses a refused client itself until its next token is due, then asks the store again', async () => {
    const store = countingStore();
    const buckets = rememberRefusals(store);
    const take = async (client: string, now: number) => buckets.take(client, 2, PER_MS, now);
    expect((await take('a', 0)).allowed).toBe(true);
    expect((await take('a', 0)).allowed).toBe(true);
    expect(await take('a', 0)).toEqual({ allowed: false, tokens: 0 });
    expect(store.calls).toBe(3);
    // A flood: answered here, with the tokens the store would have said.
    for (let i = 0; i < 1_000; i += 1) expect((await take('a', 500)).allowed).toBe(false);
    expect(await take('a', 999)).toEqual({ allowed: false, tokens: 0.999 });
    expect(store.calls).toBe(3);
    // Another client is the store's to answer.
    expect((await take('b', 999)).allowed).toBe(true);
    expect(store.calls).toBe(4);
    // Its next token is due: the store is asked and grants it.
    expect(await take('a', 1_000)).toEqual({ allowed: true, tokens: 0 });
    expect(store.calls).toBe(5);
  });

  it('stays synchronous over a synchronous store', () => {
    const buckets = rememberRefusals(memoryRateBuckets());
    const answers = [0, 1, 2].map(() => atOnce(buckets.take('a', 1, PER_MS, 0)));
    expect(answers.map((answer) => answer.allowed)).toEqual([true, false, false]);
  });
});
