/**
 * The steered fetch through its transport seam (the one a Workers build would replace): address
 * choice, credentials, redirects and the deadline, with a transport that records each exchange and
 * never opens a socket; then the Node transport's connection target (SNI and pinning).
 */
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { fail, type SourceResult, succeed } from '../../../../src/sources/failure.ts';
import {
  type ConnectTarget,
  createNodeTransport,
} from '../../../../src/sources/public-fetch/node-transport.ts';
import { OutboundRefusal } from '../../../../src/sources/public-fetch/outbound-refusal.ts';
import {
  createPublicFetch,
  MAX_REDIRECTS,
  type PinnedExchange,
} from '../../../../src/sources/public-fetch/public-fetch.ts';

const PUBLIC = '93.184.215.14';
const HOST = 'rdap.registry-one.net';

function steered(
  resolve: (name: string) => Promise<SourceResult<string[]>>,
  answer: (exchange: PinnedExchange) => Response,
) {
  const exchanges: PinnedExchange[] = [];
  const publicFetch = createPublicFetch({
    resolve,
    allowPrivate: false,
    transport: async (exchange) => {
      exchanges.push(exchange);
      return answer(exchange);
    },
  });
  return { publicFetch, exchanges };
}

const resolvesTo = (addresses: string[]) => async () => succeed(addresses);
const ok = () => new Response('{}', { status: 200 });
const redirectTo = (location: string) => () => new Response(null, { status: 302, headers: { location } });

describe('createPublicFetch', () => {
  it('connects to the first public address, without the URL credentials', async () => {
    const { publicFetch, exchanges } = steered(resolvesTo(['10.0.0.7', '::1', PUBLIC]), ok);
    const response = await publicFetch(`https://user:pw@${HOST}/rdap/domain/a.net?x=1`, {
      headers: { accept: 'application/rdap+json' },
    });
    expect(response.status).toBe(200);
    expect(exchanges).toHaveLength(1);
    expect(exchanges[0]?.address).toBe(PUBLIC);
    expect(exchanges[0]?.url.href).toBe(`https://${HOST}/rdap/domain/a.net?x=1`);
    expect(exchanges[0]?.headers.get('accept')).toBe('application/rdap+json');
  });

  it(`follows ${MAX_REDIRECTS} redirects, relative ones against the current URL, and refuses a fourth`, async () => {
    let hops = 0;
    const { publicFetch, exchanges } = steered(resolvesTo([PUBLIC]), () =>
      hops++ < MAX_REDIRECTS ? redirectTo(`/hop/${hops}`)() : ok(),
    );
    expect((await publicFetch(`https://${HOST}/start`)).status).toBe(200);
    expect(exchanges.map((e) => e.url.pathname)).toEqual(['/start', '/hop/1', '/hop/2', '/hop/3']);

    const looping = steered(resolvesTo([PUBLIC]), redirectTo('/again'));
    await expect(looping.publicFetch(`https://${HOST}/start`)).rejects.toMatchObject({
      name: 'OutboundRefusal',
      code: 'http_status',
    });
    expect(looping.exchanges).toHaveLength(MAX_REDIRECTS + 1);
  });

  it('checks every redirect target: a hop to a name resolving to metadata is never exchanged', async () => {
    const resolve = async (name: string) => succeed(name === HOST ? [PUBLIC] : ['169.254.169.254']);
    const { publicFetch, exchanges } = steered(resolve, redirectTo('https://inner.registry-one.net/'));
    await expect(publicFetch(`https://${HOST}/`)).rejects.toMatchObject({ code: 'blocked_address' });
    expect(exchanges.map((e) => e.address)).toEqual([PUBLIC]);
  });

  it('keeps fetch semantics for redirect: manual returns the 3xx, error refuses it', async () => {
    const manual = steered(resolvesTo([PUBLIC]), redirectTo('/next'));
    expect((await manual.publicFetch(`https://${HOST}/`, { redirect: 'manual' })).status).toBe(302);
    const refusing = steered(resolvesTo([PUBLIC]), redirectTo('/next'));
    await expect(refusing.publicFetch(`https://${HOST}/`, { redirect: 'error' })).rejects.toBeInstanceOf(
      OutboundRefusal,
    );
  });

  it('reports a failed resolution, an empty one, and one outliving the deadline', async () => {
    const dohDown = steered(async () => fail({ code: 'servfail', source: 'doh', detail: 'SERVFAIL' }), ok);
    await expect(dohDown.publicFetch(`https://${HOST}/`)).rejects.toMatchObject({ code: 'servfail' });
    const nothing = steered(resolvesTo([]), ok);
    await expect(nothing.publicFetch(`https://${HOST}/`)).rejects.toMatchObject({ code: 'network' });
    const hanging = steered(() => new Promise(() => {}), ok);
    await expect(
      hanging.publicFetch(`https://${HOST}/`, { signal: AbortSignal.timeout(50) }),
    ).rejects.toMatchObject({ code: 'timeout' });
    expect([...dohDown.exchanges, ...nothing.exchanges, ...hanging.exchanges]).toEqual([]);
  });
});

describe('createNodeTransport', () => {
  async function targetOf(url: string, address: string): Promise<ConnectTarget | undefined> {
    const targets: ConnectTarget[] = [];
    const transport = createNodeTransport((target) => {
      targets.push(target);
      const socket = new Socket();
      process.nextTick(() => socket.destroy(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })));
      return socket;
    });
    await expect(
      transport({ url: new URL(url), address, headers: new Headers(), signal: undefined }),
    ).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    return targets[0];
  }

  it('pins https to the checked address with SNI of the name, on the URL port or 443', async () => {
    expect(await targetOf(`https://${HOST}/rdap/`, PUBLIC)).toEqual({
      address: PUBLIC,
      port: 443,
      servername: HOST,
      tls: true,
    });
    expect(await targetOf(`http://${HOST}:8080/`, '2606:4700::1')).toEqual({
      address: '2606:4700::1',
      port: 8080,
      servername: HOST,
      tls: false,
    });
  });

  it('sends no SNI for an IP-literal URL', async () => {
    expect(await targetOf(`https://[2606:4700::1]/`, '2606:4700::1')).toMatchObject({
      servername: undefined,
      tls: true,
    });
  });
});
