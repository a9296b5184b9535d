/**
 * The name lookup of `npm run edge:dev`'s emulated network: offline or with a failing resolver it
 * hands the connection an error (the check answers 502) and never throws out of the callback,
 * which would end the dev process with "addresses is not iterable".
 */
import type { lookup as systemLookup, LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { edgeLookup } from '../../../scripts/local-edge.ts';
import { fail } from '../../../src/sources/failure.ts';

type Outcome = { error: NodeJS.ErrnoException | null; address: unknown; family?: number };

/** Runs one lookup and returns what the connection is told. */
function look(lookup: ReturnType<typeof edgeLookup>, hostname: string, all = false): Promise<Outcome> {
  return new Promise((resolve) =>
    lookup(hostname, { all }, (error, address, family) => resolve({ error, address, family })),
  );
}

/** A system lookup that fails as getaddrinfo does offline: an error and no addresses at all. */
const offline = ((_host: string, _options: unknown, callback: (error: Error) => void) =>
  callback(
    Object.assign(new Error('getaddrinfo EAI_AGAIN doh.example'), { code: 'EAI_AGAIN' }),
  )) as unknown as typeof systemLookup;

const neverCalled = () => Promise.reject(new Error('DoH must not be asked for a resolver name'));

describe('edgeLookup', () => {
  it('passes an offline system lookup of the resolver on as the error', async () => {
    const outcome = await look(edgeLookup(new Set(['doh.example']), neverCalled, offline), 'doh.example');
    expect(outcome.error?.code).toBe('EAI_AGAIN');
    expect(outcome.address).toBe('');
  });

  it('passes a resolver that rejects, or answers a failure, on as an error', async () => {
    const rejected = await look(
      edgeLookup(new Set(), () =>
        Promise.reject(Object.assign(new Error('fetch failed'), { code: 'ECONNRESET' })),
      ),
      'shop.example',
    );
    expect(rejected.error?.code).toBe('ECONNRESET');
    const failed = await look(
      edgeLookup(new Set(), async () =>
        fail({ source: 'doh', code: 'network', detail: 'the resolver could not be reached' }),
      ),
      'shop.example',
      true,
    );
    expect(failed.error?.code).toBe('ENOTFOUND');
    expect(failed.error?.message).toBe('no address for shop.example');
  });

  it('answers the resolved addresses, one or all as asked', async () => {
    const lookup = edgeLookup(new Set(), async () => ({ ok: true, value: ['192.0.2.7', '2001:db8::7'] }));
    expect(await look(lookup, 'shop.example')).toEqual({ error: null, address: '192.0.2.7', family: 4 });
    const all = await look(lookup, 'shop.example', true);
    expect(all.address as LookupAddress[]).toEqual([
      { address: '192.0.2.7', family: 4 },
      { address: '2001:db8::7', family: 6 },
    ]);
  });

  it('looks IP literals up through the system', async () => {
    const outcome = await look(edgeLookup(new Set(), neverCalled), '127.0.0.1');
    expect(outcome).toEqual({ error: null, address: '127.0.0.1', family: 4 });
  });
});
