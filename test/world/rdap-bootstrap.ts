/**
 * Loopback stand-in for IANA's RDAP bootstrap file (`/rdap/dns.json`, RFC 9224), with entries
 * pointing at the loopback registry under Verisign-style path prefixes such as `/com/v1/`.
 */
import type { ServerResponse } from 'node:http';
import { type LoopbackServer, startLoopbackServer } from './loopback-server.ts';

/** One RFC 9224 service: [entries (labels), base URLs]. */
export type BootstrapService = [string[], string[]];

/** What the fake plays instead of the file. */
export type RdapBootstrapMode = 'hang' | 'server_error' | 'truncated';

export interface RdapBootstrapFake extends LoopbackServer {
  /** The file's URL, for `RDAP_BOOTSTRAP_URL`. */
  fileUrl: URL;
  /** When set, every request plays this mode. */
  mode: RdapBootstrapMode | null;
  /** The services served; tests may push more before the first fetch. */
  services: BootstrapService[];
}

/** Zones the loopback registry serves. Not `.de` or `.io`: like the real file, they are absent. */
export const BOOTSTRAP_ZONES = [
  ['com'],
  ['net'],
  ['org'],
  ['dev', 'app'],
  ['shop'],
  ['no'],
  ['fi'],
  ['fr'],
  ['uk'],
  ['co.uk'],
];

/** Starts the bootstrap file; each zone gets the http-only base `<registry>/<zone>/v1/`. */
export async function startRdapBootstrap(registry: URL): Promise<RdapBootstrapFake> {
  const services: BootstrapService[] = BOOTSTRAP_ZONES.map((zones) => [
    zones,
    [new URL(`/${zones[0]}/v1/`, registry).href],
  ]);
  const server = await startLoopbackServer((_req, res, url) => {
    if (url.pathname !== '/rdap/dns.json') {
      res.writeHead(404, { 'content-type': 'text/html' });
      return void res.end('<h1>Not Found</h1>');
    }
    if (fake.mode) return play(res, fake.mode);
    // IANA's member order and 2-space indentation.
    const file = {
      description: 'RDAP bootstrap file for Domain Name System registrations',
      publication: '2026-03-23T19:00:02Z',
      services: fake.services,
      version: '1.0',
    };
    sendFile(res, JSON.stringify(file, null, 2));
  });
  const fake: RdapBootstrapFake = {
    ...server,
    fileUrl: new URL('/rdap/dns.json', server.url),
    mode: null,
    services,
  };
  return fake;
}

function sendFile(res: ServerResponse, text: string): void {
  res.writeHead(200, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
  });
  res.end(text);
}

function play(res: ServerResponse, mode: RdapBootstrapMode): void {
  switch (mode) {
    case 'hang':
      return;
    case 'server_error':
      res.writeHead(503, { 'content-type': 'text/html' });
      return void res.end('<h1>503 Service Unavailable</h1>');
    case 'truncated':
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(
        '{\n  "description": "RDAP bootstrap file for Domain Name System registrations",\n  "servi',
      );
  }
}
