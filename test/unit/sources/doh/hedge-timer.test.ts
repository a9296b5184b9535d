import dnsPacket from 'dns-packet';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createDohClient, DNS_MESSAGE_TYPE } from '../../../../src/sources/doh/client.ts';

/** A resolver answering every A question at once with one address. */
const answering = async (input: string | URL | Request) => {
  const url = new URL(input instanceof Request ? input.url : input);
  const query = dnsPacket.decode(Buffer.from(url.searchParams.get('dns') ?? '', 'base64url'));
  const body = dnsPacket.encode({
    type: 'response',
    id: 0,
    flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE,
    questions: query.questions,
    answers: (query.questions ?? []).map((question) => ({
      type: 'A',
      name: question.name,
      ttl: 60,
      data: '192.0.2.1',
    })),
  });
  return new Response(body, { headers: { 'content-type': DNS_MESSAGE_TYPE } });
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe('DoH hedge', () => {
  it('cancels the hedge timer once the primary answers, so no timer fires a hedge delay later', async () => {
    const hedgeMs = 987_654;
    const hedgeTimers = new Set<unknown>();
    const setTimer = globalThis.setTimeout;
    vi.spyOn(globalThis, 'setTimeout').mockImplementation(((handler: () => void, ms?: number) => {
      const timer = setTimer(handler, ms);
      if (ms === hedgeMs) hedgeTimers.add(timer);
      return timer;
    }) as typeof setTimeout);
    const cleared = vi.spyOn(globalThis, 'clearTimeout');
    const client = createDohClient({
      fetch: answering,
      primaryUrl: new URL('https://primary.example/dns-query'),
      fallbackUrl: new URL('https://fallback.example/dns-query'),
      hedgeMs,
    });
    const names = ['a.example', 'b.example', 'c.example'];
    const answers = await Promise.all(names.map((name) => client.query(name, 'A')));
    expect(answers.map((answer) => answer.ok && answer.value.fellBack)).toEqual([false, false, false]);
    expect(hedgeTimers.size).toBe(names.length);
    const clearedTimers = new Set(cleared.mock.calls.map(([timer]) => timer));
    for (const timer of hedgeTimers) expect(clearedTimers.has(timer as never)).toBe(true);
  });
});
