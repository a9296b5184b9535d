import { afterEach, describe, expect, it, vi } from 'vitest';
import { boundedFetch, type FetchLike } from '../../../src/sources/bounded-fetch.ts';
import { deadlineAfter, withDeadline } from '../../../src/sources/deadline.ts';

const aborted = (signal: AbortSignal) =>
  new Promise<unknown>((resolve) => signal.addEventListener('abort', () => resolve(signal.reason)));

afterEach(() => {
  vi.useRealTimers();
});

describe('deadlineAfter', () => {
  it('aborts its signal with a TimeoutError when the time comes, as AbortSignal.timeout does', async () => {
    const deadline = deadlineAfter(5);
    const reason = await aborted(deadline.signal);
    expect(reason).toBeInstanceOf(DOMException);
    expect((reason as DOMException).name).toBe('TimeoutError');
  });

  it('never aborts once cleared, and leaves no timer behind', () => {
    vi.useFakeTimers();
    const deadline = deadlineAfter(5);
    deadline.clear();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(50);
    expect(deadline.signal.aborted).toBe(false);
  });
});

describe('withDeadline', () => {
  it('clears its timer once the work has settled, answered or failed', async () => {
    vi.useFakeTimers();
    const signals: AbortSignal[] = [];
    expect(await withDeadline(5, async (signal) => (signals.push(signal), 'answer'))).toBe('answer');
    await expect(
      withDeadline(5, async (signal) => {
        signals.push(signal);
        throw new Error('upstream');
      }),
    ).rejects.toThrow('upstream');
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(50);
    expect(signals.map((signal) => signal.aborted)).toEqual([false, false]);
  });

  it('aborts the signal of work still running when the time comes', async () => {
    const reason = await withDeadline(5, (signal) => aborted(signal));
    expect((reason as DOMException).name).toBe('TimeoutError');
  });
});

describe('boundedFetch deadlines', () => {
  it('leaves no deadline behind once the answer is read: the signal it gave fetch never aborts later', async () => {
    const signals: AbortSignal[] = [];
    const fetch: FetchLike = async (_url, init) => {
      if (init?.signal) signals.push(init.signal);
      return new Response('{}', { headers: { 'content-type': 'application/json' } });
    };
    const options = { source: 'test', fetch, timeoutMs: 5, maxBytes: 1024, accept: ['application/json'] };
    const answered = await boundedFetch(new URL('https://upstream.example/'), options);
    const refused = await boundedFetch(new URL('https://upstream.example/'), {
      ...options,
      accept: ['text/plain'],
    });
    expect(answered.ok).toBe(true);
    expect(refused.ok).toBe(false);
    expect(signals).toHaveLength(2);
    // Real time here (an `AbortSignal.timeout` deadline is not a timer the fake clock controls): ten
    // times the 5 ms deadline that must not fire.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(signals.map((signal) => signal.aborted)).toEqual([false, false]);
  });

  it('still times out a call that hangs, and says so', async () => {
    const fetch: FetchLike = (_url, init) =>
      new Promise((_resolve, reject) =>
        init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)),
      );
    const result = await boundedFetch(new URL('https://upstream.example/'), {
      source: 'test',
      fetch,
      timeoutMs: 5,
      maxBytes: 1024,
      accept: ['application/json'],
    });
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.failure).toMatchObject({ code: 'timeout', detail: 'test did not answer within 5 ms' });
  });
});
