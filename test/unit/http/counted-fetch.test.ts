import { describe, expect, it } from 'vitest';
import { countedFetch } from '../../../src/http/counted-fetch.ts';

/** A fetch whose answers are settled by the test, in any order. */
function heldFetch() {
  const held: { resolve: (answer: Response) => void; reject: (error: Error) => void }[] = [];
  const fetch = (mode: 'sync' | 'held' | 'throws') => {
    if (mode === 'sync') return new Response('now');
    if (mode === 'throws') throw new Error('at once');
    return new Promise<Response>((resolve, reject) => held.push({ resolve, reject }));
  };
  return { fetch, held };
}

describe('countedFetch', () => {
  it('passes a synchronous answer on as it is, and counts nothing left for it', async () => {
    const counted = countedFetch(heldFetch().fetch);
    const answer = counted.fetch('sync');
    expect(answer).toBeInstanceOf(Response);
    expect(await (answer as Response).text()).toBe('now');
    expect(counted.active()).toBe(0);
  });

  it('counts each request until its answer is made, failed or thrown', async () => {
    const { fetch, held } = heldFetch();
    const counted = countedFetch(fetch);
    const first = counted.fetch('held');
    const second = counted.fetch('held');
    expect(counted.active()).toBe(2);
    expect(() => counted.fetch('throws')).toThrow('at once');
    expect(counted.active()).toBe(2);
    held[1]?.reject(new Error('upstream'));
    await expect(second).rejects.toThrow('upstream');
    expect(counted.active()).toBe(1);
    held[0]?.resolve(new Response('later'));
    expect(await (await first).text()).toBe('later');
    expect(counted.active()).toBe(0);
    expect(counted.started()).toBe(3);
  });
});
