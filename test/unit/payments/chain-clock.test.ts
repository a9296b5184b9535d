/**
 * The chain's clock: our clock corrected by the skew measured against the chain's time, a skew of
 * block granularity ignored, reads shared and kept for their age, a failed read reported, a read
 * that never settles forgotten.
 */
import { describe, expect, it } from 'vitest';
import { CHAIN_TIME_READ_PATIENCE_MS, chainClock } from '../../../src/payments/chain/chain-clock.ts';

const LOCAL_MS = 1_800_000_000_000;

describe('chainClock', () => {
  it('is our clock until the chain has answered, then our clock corrected by the skew', async () => {
    let chainSeconds = BigInt(LOCAL_MS / 1000 + 120);
    const clock = chainClock(
      async () => chainSeconds,
      () => LOCAL_MS,
    );
    expect(clock.now()).toBe(LOCAL_MS);
    expect(clock.skewMs()).toBeUndefined();
    expect(await clock.refresh(0)).toBe(true);
    expect(clock.skewMs()).toBe(-120_500);
    expect(clock.now()).toBe(LOCAL_MS + 120_500);
    // Within a block's granularity: no skew to correct.
    chainSeconds = BigInt(LOCAL_MS / 1000 - 1);
    await clock.refresh(0);
    expect(clock.now()).toBe(LOCAL_MS);
  });

  it('reads again only when the last read is older than asked, and reports a failed read', async () => {
    let reads = 0;
    let fail = false;
    let local = LOCAL_MS;
    const clock = chainClock(
      async () => {
        reads += 1;
        if (fail) throw new Error('HTTP request failed');
        return BigInt(LOCAL_MS / 1000);
      },
      () => local,
    );
    await Promise.all([clock.refresh(1_000), clock.refresh(1_000)]);
    expect(reads).toBe(1);
    expect(await clock.refresh(1_000)).toBe(true);
    expect(reads).toBe(1);
    fail = true;
    local += 1_001;
    expect(await clock.refresh(1_000)).toBe(false);
    expect(reads).toBe(2);
    // The last skew measured still applies.
    expect(clock.skewMs()).toBe(-500);
  });

  it('forgets a read that never settles: a later refresh reads anew and answers', async () => {
    let local = LOCAL_MS;
    let reads = 0;
    const clock = chainClock(
      () => {
        reads += 1;
        // The first read was lost with the request that started it.
        return reads === 1 ? new Promise<bigint>(() => {}) : Promise.resolve(BigInt(LOCAL_MS / 1000));
      },
      () => local,
    );
    const lost = clock.refresh(0);
    local += CHAIN_TIME_READ_PATIENCE_MS - 1;
    expect(clock.refresh(0)).toBe(lost);
    expect(reads).toBe(1);
    local += 1;
    expect(await clock.refresh(0)).toBe(true);
    expect(reads).toBe(2);
    expect(clock.skewMs()).toBe(CHAIN_TIME_READ_PATIENCE_MS - 500);
  });
});
