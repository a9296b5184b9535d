/**
 * `sharedRoundCheck` over an in-memory board (the in-process in-flight lock and a map of shared
 * answers): one check for workers wanting a domain at once, outcomes kept for the round's window (a
 * failure briefly), entries read back with suspicion, and a board that cannot be asked or a holder
 * that never finishes never keeps a watch unchecked.
 */
import { describe, expect, it } from 'vitest';
import type { RunOutcome } from '../../../src/checks/outcome.ts';
import type { SiteHealthResult } from '../../../src/checks/site-health/result.ts';
import { createInFlightLock } from '../../../src/payments/server/in-flight-lock.ts';
import { outputExampleFor } from '../../../src/payments/server/output-examples.ts';
import type { WatchCheck } from '../../../src/watches/ports.ts';
import {
  FAILURE_KEEP_MS,
  type RoundBoard,
  roundWindowMs,
  sharedRoundCheck,
} from '../../../src/watches/round-check.ts';

const DOMAIN = 'example.com';
const WINDOW_MS = roundWindowMs(600);
const result = structuredClone(outputExampleFor('v1_site_health')) as SiteHealthResult;
const failed: RunOutcome<SiteHealthResult> = {
  type: 'upstream_failed',
  upstreams: [{ name: 'crt.sh', error: 'timeout' }],
};

/** A board in memory that records what was written and what was unreadable. */
function memoryBoard() {
  const texts = new Map<string, string>();
  const written: { key: string; ttlMs: number }[] = [];
  const unreadable: string[] = [];
  const board: RoundBoard = {
    outcomes: {
      get: async (key) => texts.get(key) ?? null,
      async set(key, text, ttlMs) {
        texts.set(key, text);
        written.push({ key, ttlMs });
      },
      unreadable: (key) => void unreadable.push(key),
    },
    leases: createInFlightLock(),
  };
  return { board, texts, written, unreadable };
}

/** A check the test finishes: `entered` resolves when it was called, `finish` answers it. */
function heldCheck() {
  const calls: string[] = [];
  let finish: (outcome: RunOutcome<SiteHealthResult>) => void = () => {};
  let entered: () => void = () => {};
  const wasEntered = new Promise<void>((resolve) => (entered = resolve));
  const check: WatchCheck = (domain) => {
    calls.push(domain);
    entered();
    return new Promise((resolve) => (finish = resolve));
  };
  return {
    check,
    calls,
    entered: wasEntered,
    finish: (outcome: RunOutcome<SiteHealthResult>) => finish(outcome),
  };
}

const counting = (outcome: RunOutcome<SiteHealthResult>) => {
  const calls: string[] = [];
  const check: WatchCheck = async (domain) => {
    calls.push(domain);
    return outcome;
  };
  return { check, calls };
};

describe('sharedRoundCheck', () => {
  it('checks once for workers that want one domain at once, and hands each the same result', async () => {
    const { board, written } = memoryBoard();
    const held = heldCheck();
    const first = sharedRoundCheck(held.check, board, { windowMs: WINDOW_MS, pollMs: 1 });
    const second = sharedRoundCheck(held.check, board, { windowMs: WINDOW_MS, pollMs: 1 });
    const answers = [first(DOMAIN)];
    await held.entered;
    answers.push(second(DOMAIN));
    held.finish({ type: 'result', result });
    const [mine, theirs] = await Promise.all(answers);
    expect(held.calls).toEqual([DOMAIN]);
    expect(mine).toEqual({ type: 'result', result });
    expect(theirs).toEqual(mine);
    expect(written).toEqual([{ key: `round:${DOMAIN}`, ttlMs: WINDOW_MS }]);
    // Later in the round: the result kept, no check.
    expect(await second(DOMAIN)).toEqual(mine);
    expect(held.calls).toHaveLength(1);
  });

  it('keeps a failure only briefly, and shares no invalid input', async () => {
    const { board, written } = memoryBoard();
    await sharedRoundCheck(counting(failed).check, board, { windowMs: WINDOW_MS })(DOMAIN);
    await sharedRoundCheck(
      counting({ type: 'invalid_input', reason: { code: 'invalid_domain', message: 'no' } } as never).check,
      board,
      {
        windowMs: WINDOW_MS,
      },
    )('other.example');
    expect(written).toEqual([{ key: `round:${DOMAIN}`, ttlMs: FAILURE_KEEP_MS }]);
    expect(FAILURE_KEEP_MS).toBeLessThan(WINDOW_MS);
  });

  it.each([
    ['not JSON', '{"type":"result","result":'],
    ['JSON null', 'null'],
    ['a result that is no site-health result', JSON.stringify({ type: 'result', result: { domain: 1 } })],
    ['an unknown type', JSON.stringify({ type: 'cached', result })],
    [
      'a failure with an unknown code',
      JSON.stringify({ type: 'upstream_failed', upstreams: [{ name: 'crt.sh', error: '<script>' }] }),
    ],
    [
      'a prototype key',
      JSON.stringify({ type: 'upstream_failed', upstreams: [{ name: 'x', error: '__proto__' }] }),
    ],
    ['a huge string', `"${'x'.repeat(1_000_000)}"`],
  ])('takes %s as a miss, reported once, and checks', async (_, text) => {
    const { board, texts, unreadable } = memoryBoard();
    texts.set(`round:${DOMAIN}`, text);
    const { check, calls } = counting({ type: 'result', result });
    expect(await sharedRoundCheck(check, board, { windowMs: WINDOW_MS })(DOMAIN)).toEqual({
      type: 'result',
      result,
    });
    expect(calls).toEqual([DOMAIN]);
    expect(unreadable).toEqual([`round:${DOMAIN}`]);
    // The check's own outcome replaced it.
    expect(JSON.parse(texts.get(`round:${DOMAIN}`) ?? '')).toEqual({ type: 'result', result });
  });

  it('drops fields a result does not have', async () => {
    const { board, texts } = memoryBoard();
    texts.set(`round:${DOMAIN}`, JSON.stringify({ type: 'result', result: { ...result, injected: '<b>' } }));
    const outcome = await sharedRoundCheck(counting(failed).check, board, { windowMs: WINDOW_MS })(DOMAIN);
    expect(outcome).toEqual({ type: 'result', result });
  });

  it('checks alone when the board cannot be asked', async () => {
    const errors: unknown[] = [];
    const board: RoundBoard = {
      outcomes: {
        get: () => Promise.reject(new Error('store down')),
        set: () => Promise.reject(new Error('store down')),
      },
      leases: { acquire: () => Promise.reject(new Error('store down')) },
    };
    const { check, calls } = counting({ type: 'result', result });
    const outcome = await sharedRoundCheck(check, board, {
      windowMs: WINDOW_MS,
      onError: (e) => errors.push(e),
    })(DOMAIN);
    expect(outcome.type).toBe('result');
    expect(calls).toEqual([DOMAIN]);
    expect(errors).toHaveLength(1);
  });

  it('checks by itself when a holder never finishes, after the longest wait', async () => {
    const { board } = memoryBoard();
    const stuck = heldCheck();
    void sharedRoundCheck(stuck.check, board, { windowMs: WINDOW_MS })(DOMAIN);
    await stuck.entered;
    let clock = 0;
    const waits: number[] = [];
    const { check, calls } = counting({ type: 'result', result });
    const waiter = sharedRoundCheck(check, board, {
      windowMs: WINDOW_MS,
      pollMs: 0,
      maxWaitMs: 5,
      now: () => {
        waits.push(clock);
        return (clock += 1);
      },
    });
    expect((await waiter(DOMAIN)).type).toBe('result');
    expect(calls).toEqual([DOMAIN]);
    expect(waits.length).toBeGreaterThan(3);
    stuck.finish(failed);
  });
});
