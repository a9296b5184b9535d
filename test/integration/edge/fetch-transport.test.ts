/**
 * The edge transport for the steered fetch, with a real fetch (Node's, names pinned to loopback)
 * against an HTTPS site on loopback: redirects come back unfollowed, headers and the abort signal
 * reach the exchange, and the body is a stream read as it arrives.
 */
import type { ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createFetchTransport } from '../../../src/edge/fetch-transport.ts';
import type { PinnedExchange } from '../../../src/sources/public-fetch/public-fetch.ts';
import { type LoopbackFetch, loopbackFetch } from './loopback-fetch.ts';
import { startTlsSite, type TlsSite } from './tls-site.ts';

const HOST = 'rdap.registry-one.net';

let site: TlsSite;
let client: LoopbackFetch;
/** The response of a `/stream` request, held open until the test writes the rest. */
let streaming: ServerResponse | undefined;

beforeAll(async () => {
  site = await startTlsSite([HOST, `www.${HOST}`], (req, res, url) => {
    if (url.pathname === '/moved') {
      res.writeHead(302, { location: `https://www.${HOST}/new` }).end();
    } else if (url.pathname === '/stream') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first,');
      streaming = res;
    } else if (url.pathname === '/hang') {
      // Never answers; the abort must end the exchange.
    } else {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(req.headers));
    }
  });
});
afterAll(() => site.close());
beforeEach(() => {
  site.requests.length = 0;
  streaming = undefined;
  client = loopbackFetch(site.caPem);
});
afterEach(() => client.close());

function exchangeFor(path: string, init: Partial<PinnedExchange> = {}): PinnedExchange {
  return {
    url: new URL(`https://${HOST}:${site.port}${path}`),
    address: '127.0.0.1',
    headers: new Headers({ accept: 'application/rdap+json', 'x-probe': 'edge' }),
    signal: undefined,
    ...init,
  };
}

describe('createFetchTransport', () => {
  it('returns a redirect as it came, without following it', async () => {
    const response = await createFetchTransport(client.fetch)(exchangeFor('/moved'));
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe(`https://www.${HOST}/new`);
    expect(site.requests.map((request) => `${request.method} ${request.url.pathname}`)).toEqual([
      'GET /moved',
    ]);
    expect(client.lookups).toEqual([HOST]);
  });

  it('sends GET with the exchange headers, and the URL host in Host', async () => {
    const response = await createFetchTransport(client.fetch)(exchangeFor('/echo?x=1'));
    expect(response.status).toBe(200);
    const seen = (await response.json()) as Record<string, string>;
    expect(seen).toMatchObject({
      host: `${HOST}:${site.port}`,
      accept: 'application/rdap+json',
      'x-probe': 'edge',
    });
    expect(
      site.requests.map((request) => `${request.method} ${request.url.pathname}${request.url.search}`),
    ).toEqual(['GET /echo?x=1']);
  });

  it('ends the exchange when its signal aborts', async () => {
    const controller = new AbortController();
    const pending = createFetchTransport(client.fetch)(exchangeFor('/hang', { signal: controller.signal }));
    await expect.poll(() => site.requests.length).toBe(1);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('streams the body: the first bytes are readable before the rest is sent', async () => {
    const response = await createFetchTransport(client.fetch)(exchangeFor('/stream'));
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    const first = await reader.read();
    expect(decoder.decode(first.value)).toBe('first,');
    expect(streaming?.writableEnded).toBe(false);
    streaming?.end('rest');
    let rest = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      rest += decoder.decode(chunk.value, { stream: true });
    }
    expect(rest).toBe('rest');
  });
});
