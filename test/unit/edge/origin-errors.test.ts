/** Cloudflare's own "could not reach the origin" answers (and the local edge's emulation of them) read as unreachable. */
import { describe, expect, it } from 'vitest';
import { originError } from '../../../scripts/local-edge.ts';
import { rejectingOriginErrors } from '../../../src/edge/origin-errors.ts';
import { boundedFetch } from '../../../src/sources/bounded-fetch.ts';

const answering = (response: Response) => async () => response;

describe('rejectingOriginErrors', () => {
  it.each([522, 523, 530])(
    'a %d from Cloudflare is an unreachable upstream: bounded fetch says network',
    async (status) => {
      const fetch = rejectingOriginErrors(answering(new Response('error code: 1016', { status })));
      const reply = await boundedFetch(new URL('https://crt.sh/'), {
        source: 'crt.sh',
        fetch,
        timeoutMs: 1_000,
        maxBytes: 1_000,
        accept: ['application/json'],
      });
      expect(reply).toMatchObject({ ok: false, failure: { code: 'network' } });
    },
  );

  it.each([200, 404, 500, 502, 503, 504, 520, 521, 524, 525, 526])(
    'a %d is the upstream answering, left as it is',
    async (status) => {
      const response = new Response(null, { status });
      expect(await rejectingOriginErrors(answering(response))('https://crt.sh/')).toBe(response);
    },
  );
});

describe('the local edge answers an undeliverable subrequest as Cloudflare does', () => {
  const failure = (code: string) =>
    new TypeError('fetch failed', { cause: Object.assign(new Error(code), { code }) });

  it.each([
    ['ENOTFOUND', 530, 'error code: 1016'],
    ['EAI_AGAIN', 530, 'error code: 1016'],
    ['UND_ERR_CONNECT_TIMEOUT', 522, 'error code: 522'],
    ['ECONNREFUSED', 523, 'error code: 523'],
  ])('%s: %d', async (code, status, text) => {
    const response = originError(failure(code));
    expect(response.status).toBe(status);
    expect(await response.text()).toBe(text);
  });

  it('a cause chain that loops ends (no hang), and an unknown error is 523', () => {
    const looping: { code: string; cause?: unknown } = { code: 'EWHATEVER' };
    looping.cause = looping;
    expect(originError(looping).status).toBe(523);
    expect(originError('not an error').status).toBe(523);
  });
});
