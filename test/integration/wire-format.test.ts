/**
 * The answer's bytes on a real loopback socket: every answer, whether built by `reply` as one plain
 * header record or made elsewhere and stamped afterwards, writes its header lines in the order a
 * `Headers` object gives (lower-case names, sorted), then `Content-Length`, then Node's own `Date`
 * and `Connection`, and carries the standard headers.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECURITY_HEADERS } from '../../src/http/hygiene/standard-headers.ts';
import { type ServedApp, serveApp } from '../support/serve-app.ts';
import { createDiscoveryApp } from '../unit/http/discovery/discovery-app.ts';

let served: ServedApp;
let port: number;

beforeAll(async () => {
  served = await serveApp(createDiscoveryApp());
  port = served.port;
});

afterAll(() => served.close());

/** One raw HTTP/1.1 exchange: the header lines and the body as sent. */
async function exchange(
  method: string,
  path: string,
): Promise<{ status: string; lines: string[]; body: Buffer }> {
  const raw = await new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1', () =>
      socket.write(`${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`),
    );
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => resolve(Buffer.concat(chunks)));
    socket.on('error', reject);
  });
  const split = raw.indexOf('\r\n\r\n');
  const [status = '', ...lines] = raw.subarray(0, split).toString('latin1').split('\r\n');
  return { status, lines, body: raw.subarray(split + 4) };
}

const ANSWERS: [method: string, path: string, status: number][] = [
  ['GET', '/health', 200],
  ['GET', '/v1/validate?domain=example.com', 200],
  ['GET', '/v1/validate', 400],
  ['GET', '/openapi.json', 200],
  ['GET', '/nope', 404],
  ['POST', '/v1/cert', 405],
];

describe('answers on the wire', () => {
  it.each(ANSWERS)(
    '%s %s: sorted lower-case headers, then Content-Length, Date, Connection',
    async (method, path, status) => {
      const { status: line, lines, body } = await exchange(method, path);
      expect(line).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
      const names = lines.map((header) => header.slice(0, header.indexOf(':')));
      expect(names.slice(-3)).toEqual(['Content-Length', 'Date', 'Connection']);
      const own = names.slice(0, -3);
      expect(own.every((name) => name === name.toLowerCase())).toBe(true);
      expect(own).toEqual([...own].sort());
      expect(lines.at(-3)).toBe(`Content-Length: ${body.length}`);
      for (const [name] of SECURITY_HEADERS) expect(own).toContain(name);
      expect(own).toContain('x-request-id');
    },
  );

  it('HEAD answers the GET headers without a body or a length, as before', async () => {
    const { lines, body } = await exchange('HEAD', '/health');
    const names = lines.map((header) => header.slice(0, header.indexOf(':')));
    expect(names.slice(-2)).toEqual(['Date', 'Connection']);
    expect(names).not.toContain('Content-Length');
    expect(body.length).toBe(0);
  });

  it('an answer made elsewhere (the CORS preflight) gets the standard headers, in the same order', async () => {
    const { status, lines } = await exchange('OPTIONS', '/v1/cert');
    expect(status).toMatch(/^HTTP\/1\.1 204 /);
    const names = lines.map((header) => header.slice(0, header.indexOf(':')));
    expect(names.slice(-2)).toEqual(['Date', 'Connection']);
    const own = names.slice(0, -2);
    expect(own).toEqual([...own].sort());
    for (const [name] of SECURITY_HEADERS) expect(own).toContain(name);
    expect(own).toEqual(expect.arrayContaining(['access-control-allow-methods', 'x-request-id']));
  });
});
