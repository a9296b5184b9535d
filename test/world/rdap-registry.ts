/**
 * Loopback RDAP servers: a registry shaped like Verisign's (`/<tld>/v1/domain/<NAME>`, upper-case
 * names, `\/`-escaped JSON, empty-body 404) and a registrar it refers to (`/rdap/domain/<NAME>`).
 */
import type { ServerResponse } from 'node:http';
import { type LoopbackServer, startLoopbackServer } from './loopback-server.ts';
import type { Scenario } from './scenario.ts';

/** A date the fake writes: text as is (to play date quirks) or whole days from the fake's clock. */
export type RdapFakeDate = string | { days: number };

/** The registrar entity; `nameIn: 'org'` writes the name as a jCard `org` with no `fn`. */
export interface RdapRegistrarEntity {
  name: string;
  ianaId: string;
  nameIn?: 'fn' | 'org';
}

/** One DS record of a signed delegation (RFC 9083 §5.3 `dsData`). */
export interface RdapDsData {
  keyTag: number;
  algorithm: number;
  digestType: number;
  digest: string;
}

/** A registration the fake renders as an RDAP domain object. */
export interface RdapRecord {
  /** Null leaves the registrar entity out (a thin or redacted registry answer). */
  registrar: RdapRegistrarEntity | null;
  registeredAt: RdapFakeDate;
  /** Null leaves the `expiration` event out, as `.no` and some ccTLDs do. */
  expiresAt: RdapFakeDate | null;
  /** Null leaves the `last changed` event out (the `last update of RDAP database` one stays). */
  updatedAt: RdapFakeDate | null;
  /** RFC 8056 status strings, e.g. `client transfer prohibited`. */
  status: string[];
  nameservers: string[];
  delegationSigned?: boolean;
  /** DS records written beside `delegationSigned`. */
  dsData?: RdapDsData[];
  /** The member name of the DNSSEC object: AFNIC writes `secureDns`. Default `secureDNS`. */
  secureDnsMember?: string;
  /** Event actions as the server spells them, e.g. `Expiration Date`. Default: the IANA names. */
  eventActions?: { registration?: string; expiration?: string; lastChanged?: string };
}

/** What a server plays instead of a domain object (not found, or a real failure mode). */
export type RdapFakeMode =
  | 'not_found_empty'
  | 'not_found_json'
  | 'not_found_html'
  | 'not_found_untyped'
  | 'rate_limited'
  | 'server_error'
  | 'hang'
  | 'oversized'
  | 'html'
  | 'truncated';

/** The `rdap` section of a world scenario. */
export interface RdapScenario {
  registry: RdapRecord | RdapFakeMode;
  /** The registrar's own record; when set, the registry answer links to it with `rel: related`. */
  registrar?: RdapRecord | RdapFakeMode;
  /** The `rel: related` href written as is, instead of the loopback registrar's URL. */
  referral?: string;
}

/** Used for scenarios that have no `rdap` section: a plainly healthy `.com`-style registration. */
export const DEFAULT_RDAP_RECORD: RdapRecord = {
  registrar: { name: 'Example Registrar, LLC', ianaId: '9999' },
  registeredAt: { days: -3000 },
  expiresAt: { days: 400 },
  updatedAt: { days: -30 },
  status: ['client transfer prohibited'],
  nameservers: ['ns1.dns-host.net', 'ns2.dns-host.net'],
  delegationSigned: false,
};

export interface RdapRegistryFake extends LoopbackServer {
  /** The registrar's server, which the registry's referral links point at. */
  registrar: LoopbackServer;
  /** When set, every registry answer plays this mode instead of the scenario. */
  mode: RdapFakeMode | null;
  /** When set, every registrar answer plays this mode instead of the scenario. */
  registrarMode: RdapFakeMode | null;
  /** When set, every registry answer with a registration links `rel: related` to this href. */
  referralHref: string | null;
  /**
   * When set, the registry answers each domain query with a 302 to this URL, `{path}` replaced by
   * the query's path. `/hop/<n>{path}` redirects n more times, then `/hop/0{path}` serves `{path}`.
   */
  redirectTo: string | null;
}

const RETRY_AFTER_S = 60;
const OVERSIZED_BYTES = 300 * 1024;

/** Starts the registry and registrar; unknown domains get Verisign's empty-body 404. */
export async function startRdapRegistry(
  scenarios: ReadonlyMap<string, Scenario>,
  options: { now?: () => Date } = {},
): Promise<RdapRegistryFake> {
  const now = options.now ?? (() => new Date());
  const registrar = await startLoopbackServer((_req, res, url) => {
    const name = /^\/rdap\/domain\/([^/]+)$/.exec(url.pathname)?.[1]?.toLowerCase();
    const answer = fake.registrarMode ?? (name ? scenarioOf(scenarios, name)?.registrar : undefined);
    if (!name || !answer) return play(res, 'not_found_json');
    if (typeof answer === 'string') return play(res, answer);
    sendRdap(
      res,
      200,
      renderDomain(name, answer, now(), { self: new URL(url.pathname, registrar.url), registrar: true }),
    );
  });
  const registry = await startLoopbackServer((_req, res, url) => {
    const hop = /^\/hop\/(\d+)(\/.*)$/.exec(url.pathname);
    const left = Number(hop?.[1] ?? 0);
    const path = hop?.[2] ?? url.pathname;
    if (left > 0) return redirect(res, `/hop/${left - 1}${path}`);
    if (fake.redirectTo && !hop) return redirect(res, fake.redirectTo.replace('{path}', path));
    const match = /^\/([a-z0-9.-]+)\/v1\/domain\/([^/]+)$/i.exec(path);
    const zone = match?.[1]?.toLowerCase();
    const name = match?.[2]?.toLowerCase();
    if (!zone || !name) return sendRdap(res, 400, rdapError(400, 'Malformed request'));
    if (!name.endsWith(`.${zone}`)) return sendRdap(res, 400, rdapError(400, `Not a .${zone} domain`));
    if (fake.mode) return play(res, fake.mode);
    const scenario = scenarios.get(name);
    if (!scenario) return play(res, 'not_found_empty');
    const section = scenario.rdap ?? { registry: DEFAULT_RDAP_RECORD };
    if (typeof section.registry === 'string') return play(res, section.registry);
    const related =
      fake.referralHref ??
      section.referral ??
      (section.registrar ? new URL(`/rdap/domain/${name.toUpperCase()}`, registrar.url).href : undefined);
    sendRdap(
      res,
      200,
      renderDomain(name, section.registry, now(), { self: new URL(path, registry.url), related }),
    );
  });
  const fake: RdapRegistryFake = {
    ...registry,
    registrar,
    mode: null,
    registrarMode: null,
    referralHref: null,
    redirectTo: null,
    close: async () => {
      await Promise.all([registry.close(), registrar.close()]);
    },
  };
  return fake;
}

function scenarioOf(scenarios: ReadonlyMap<string, Scenario>, name: string): RdapScenario | undefined {
  return scenarios.get(name)?.rdap;
}

/** Renders a domain object in the shape and member order of Verisign's `.com` answers. */
function renderDomain(
  name: string,
  record: RdapRecord,
  now: Date,
  at: { self: URL; related?: string | undefined; registrar?: boolean },
): object {
  const date = (value: RdapFakeDate) =>
    typeof value === 'string'
      ? value
      : new Date(now.getTime() + value.days * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const links: object[] = [
    { value: at.self.href, rel: 'self', href: at.self.href, type: 'application/rdap+json' },
  ];
  if (at.related) {
    links.push({ value: at.related, rel: 'related', href: at.related, type: 'application/rdap+json' });
  }
  const actions = record.eventActions ?? {};
  const events = [
    { eventAction: actions.registration ?? 'registration', eventDate: date(record.registeredAt) },
    ...(record.expiresAt === null
      ? []
      : [
          {
            eventAction: at.registrar ? 'registrar expiration' : (actions.expiration ?? 'expiration'),
            eventDate: date(record.expiresAt),
          },
        ]),
    ...(record.updatedAt === null
      ? []
      : [{ eventAction: actions.lastChanged ?? 'last changed', eventDate: date(record.updatedAt) }]),
    { eventAction: 'last update of RDAP database', eventDate: date({ days: 0 }) },
  ];
  return {
    objectClassName: 'domain',
    handle: `${name.length}${name.charCodeAt(0)}_DOMAIN_${name.split('.').pop()?.toUpperCase()}-VRSN`,
    ldhName: name.toUpperCase(),
    links,
    status: record.status,
    entities: record.registrar ? [registrarEntity(record.registrar)] : [],
    events,
    [record.secureDnsMember ?? 'secureDNS']: {
      delegationSigned: record.delegationSigned ?? false,
      ...(record.dsData ? { dsData: record.dsData } : {}),
    },
    nameservers: record.nameservers.map((ns) => ({
      objectClassName: 'nameserver',
      ldhName: ns.toUpperCase(),
    })),
    rdapConformance: [
      'rdap_level_0',
      'icann_rdap_technical_implementation_guide_1',
      'icann_rdap_response_profile_1',
    ],
    notices: NOTICES,
  };
}

function registrarEntity(registrar: RdapRegistrarEntity): object {
  const name =
    registrar.nameIn === 'org'
      ? [
          ['kind', {}, 'text', 'org'],
          ['org', {}, 'text', registrar.name],
        ]
      : [['fn', {}, 'text', registrar.name]];
  return {
    objectClassName: 'entity',
    handle: registrar.ianaId,
    roles: ['registrar'],
    publicIds: [{ type: 'IANA Registrar ID', identifier: registrar.ianaId }],
    vcardArray: ['vcard', [['version', {}, 'text', '4.0'], ...name]],
    entities: [
      {
        objectClassName: 'entity',
        roles: ['abuse'],
        vcardArray: [
          'vcard',
          [
            ['version', {}, 'text', '4.0'],
            ['fn', {}, 'text', ''],
            ['tel', { type: 'voice' }, 'uri', 'tel:+1.2083895740'],
            ['email', {}, 'text', 'abuse@registrar.example.net'],
          ],
        ],
      },
    ],
  };
}

const NOTICES = [
  {
    title: 'Terms of Use',
    description: ['Service subject to Terms of Use.'],
    links: [
      {
        href: 'https://www.verisign.com/domain-names/registration-data-access-protocol/terms-service/index.xhtml',
        type: 'text/html',
      },
    ],
  },
  {
    title: 'Status Codes',
    description: ['For more information on domain status codes, please visit https://icann.org/epp'],
    links: [{ href: 'https://icann.org/epp', type: 'text/html' }],
  },
  {
    title: 'RDDS Inaccuracy Complaint Form',
    description: ['URL of the ICANN RDDS Inaccuracy Complaint Form: https://icann.org/wicf'],
    links: [{ href: 'https://icann.org/wicf', type: 'text/html' }],
  },
];

function rdapError(code: number, title: string): object {
  return {
    errorCode: code,
    title,
    description: [title],
    rdapConformance: ['rdap_level_0'],
    notices: NOTICES,
  };
}

/** Compact JSON with `/` escaped as `\/`, as Verisign writes it. */
function sendRdap(
  res: ServerResponse,
  status: number,
  body: object,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body).replaceAll('/', '\\/');
  res.writeHead(status, {
    'content-type': 'application/rdap+json',
    'access-control-allow-origin': '*',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

/** RFC 7480 §5.2: a server may redirect a query elsewhere. */
function redirect(res: ServerResponse, location: string): void {
  res.writeHead(302, { location, 'content-type': 'text/html', 'content-length': '0' });
  res.end();
}

const NGINX_404 =
  '<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

function play(res: ServerResponse, mode: RdapFakeMode): void {
  switch (mode) {
    case 'not_found_empty':
      res.writeHead(404, { 'content-type': 'application/rdap+json', 'content-length': '0' });
      res.end();
      break;
    case 'not_found_json':
      sendRdap(res, 404, rdapError(404, 'Object not found'));
      break;
    case 'not_found_html':
      // The front proxy's page, not an RDAP error object.
      res.writeHead(404, { 'content-type': 'text/html', 'content-length': String(NGINX_404.length) });
      res.end(NGINX_404);
      break;
    case 'not_found_untyped':
      // No Content-Type header at all (Node adds none when it is not set).
      res.writeHead(404, { 'content-length': '9' });
      res.end('Not Found');
      break;
    case 'rate_limited':
      sendRdap(res, 429, rdapError(429, 'Too many requests'), { 'retry-after': String(RETRY_AFTER_S) });
      break;
    case 'server_error':
      sendRdap(res, 500, rdapError(500, 'Internal server error'));
      break;
    case 'hang':
      break; // Never answers; the loopback server drops the socket at close.
    case 'oversized': {
      // Chunked, without Content-Length, so only the client's running byte count can stop it.
      res.writeHead(200, { 'content-type': 'application/rdap+json' });
      res.write('{"objectClassName":"domain","notices":[');
      const notice = JSON.stringify({ title: 'Padding', description: ['x'.repeat(1000)] });
      for (let sent = 0; sent < OVERSIZED_BYTES; sent += notice.length + 1) res.write(`${notice},`);
      res.end(`${notice}]}`);
      break;
    }
    case 'html':
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<html><body>Access denied</body></html>');
      break;
    case 'truncated':
      res.writeHead(200, { 'content-type': 'application/rdap+json' });
      res.end('{"objectClassName":"domain","ldhName":"TRUNC');
      break;
  }
}
