/**
 * A loopback RFC 8484 resolver (GET ?dns= and POST application/dns-message) answering from the
 * scenarios' `dns` sections, built with dns-packet, with the real failure modes of a DoH upstream.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import dnsPacket from 'dns-packet';
import { type LoopbackServer, startLoopbackServer } from './loopback-server.ts';
import type { Scenario } from './scenario.ts';

/** How the whole resolver, or one zone, misbehaves. `servfail`/`refused` are DNS RCODEs. */
export type DohFailureMode = 'http_500' | 'hang' | 'garbage' | 'wrong_content_type' | 'servfail' | 'refused';

export interface DnsZoneRecords {
  A?: string[];
  AAAA?: string[];
  CNAME?: string;
  NS?: string[];
  MX?: { priority: number; host: string }[];
  /** One entry per record; an array is one record of several character-strings. */
  TXT?: (string | string[])[];
  CAA?: { flags?: number; tag: string; value: string }[];
  DS?: { keyTag: number; algorithm: number; digestType: number; digest: string }[];
  DNSKEY?: { flags: number; algorithm: number; key: string }[];
  /**
   * Queries for these types at this name (every type with `all`) get SERVFAIL from the resolver,
   * as when the name's authoritative servers time out; `hang` leaves the HTTP request unanswered.
   */
  fails?: { types: string[] | 'all'; failure: 'servfail' | 'hang' };
}

/** A scenario's DNS data: records by owner name (lower case, no trailing dot). */
export interface DnsScenario {
  records: Record<string, DnsZoneRecords>;
  /**
   * DNSSEC of the names at and under the scenario domain: `signed` sets AD; `bogus` answers
   * SERVFAIL unless the query has the CD bit (then the data, without AD). Default `unsigned`.
   */
  dnssec?: 'signed' | 'unsigned' | 'bogus';
  /** TTL of every record, in seconds. Default 300. */
  ttlSeconds?: number;
  /** SOA TTL and MINIMUM for NXDOMAIN/NODATA answers, in seconds. Default 300. */
  negativeTtlSeconds?: number;
  /** Every query at or under the scenario domain fails this way. */
  failure?: DohFailureMode;
}

export interface DohQueryLog {
  name: string;
  type: string;
  cd: boolean;
}

export interface FakeDoh extends LoopbackServer {
  /** The resolver endpoint, e.g. `http://127.0.0.1:41234/dns-query`. */
  endpoint: URL;
  /** Resolver-wide failure mode; `null` answers normally. */
  mode: DohFailureMode | null;
  /** Added before every answer, in milliseconds (a slow resolver). */
  delayMs: number;
  /** Every question received, in order. */
  queries: DohQueryLog[];
  /** Questions received and answers sent, in the order they happened: what ran in parallel. */
  events: { kind: 'query' | 'answer'; name: string }[];
}

const SOA_SERIAL = 2026100101;

/** Starts the fake resolver over the given scenarios. Conflicting records for one name throw. */
export async function startDoh(scenarios: Map<string, Scenario>): Promise<FakeDoh> {
  const records = mergeRecords(scenarios);
  const zones = [...scenarios.values()]
    .filter((scenario): scenario is Scenario & { dns: DnsScenario } => scenario.dns !== undefined)
    .sort((a, b) => b.domain.length - a.domain.length);
  const zoneOf = (name: string) =>
    zones.find((zone) => name === zone.domain || name.endsWith(`.${zone.domain}`));
  const queries: DohQueryLog[] = [];
  const events: FakeDoh['events'] = [];

  const fake = {} as FakeDoh;
  const server = await startLoopbackServer(async (req, res, url) => {
    const query = await readQuery(req, url);
    if (!query) return send(res, 400, 'text/plain', Buffer.from('malformed DNS query'));
    const question = query.questions?.[0];
    const name = (question?.name ?? '').toLowerCase().replace(/\.$/, '');
    const cd = query.flag_cd;
    queries.push({ name, type: question?.type ?? '', cd });
    events.push({ kind: 'query', name });
    res.once('finish', () => events.push({ kind: 'answer', name }));
    if (fake.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, fake.delayMs).unref());
    const zone = zoneOf(name);
    const failure = fake.mode ?? zone?.dns.failure ?? nameFailure(records.get(name), question?.type) ?? null;
    if (failure === 'hang') return; // The socket stays open until the client gives up or close().
    if (failure === 'http_500') return send(res, 500, 'text/plain', Buffer.from('internal error'));
    if (failure === 'garbage')
      return send(res, 200, 'application/dns-message', Buffer.from('<html>oops</html>'));
    if (failure === 'wrong_content_type') return send(res, 200, 'text/html', Buffer.from('<html></html>'));
    const answer = resolve(records, zoneOf, name, question?.type ?? 'A', cd, failure);
    const response = dnsPacket.encode({
      type: 'response',
      id: query.id,
      questions: query.questions,
      ...answer,
    });
    send(res, 200, 'application/dns-message', response);
  });
  return Object.assign(fake, server, {
    endpoint: new URL('/dns-query', server.url),
    mode: null,
    delayMs: 0,
    queries,
    events,
  });
}

function nameFailure(set: DnsZoneRecords | undefined, type = ''): DohFailureMode | undefined {
  const fails = set?.fails;
  if (!fails) return undefined;
  return fails.types === 'all' || fails.types.includes(type) ? fails.failure : undefined;
}

function send(res: ServerResponse, status: number, contentType: string, body: Buffer): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': body.length });
  res.end(body);
}

/** RFC 8484 §4.1: GET carries base64url in `dns`, POST the raw message. */
async function readQuery(req: IncomingMessage, url: URL): Promise<dnsPacket.DecodedPacket | null> {
  try {
    if (req.method === 'POST') {
      if (req.headers['content-type'] !== 'application/dns-message') return null;
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      return dnsPacket.decode(Buffer.concat(chunks));
    }
    const encoded = url.searchParams.get('dns');
    return encoded ? dnsPacket.decode(Buffer.from(encoded, 'base64url')) : null;
  } catch {
    return null;
  }
}

type ZoneOf = (name: string) => (Scenario & { dns: DnsScenario }) | undefined;

const RCODE = { NOERROR: 0, SERVFAIL: 2, NXDOMAIN: 3, REFUSED: 5 } as const;

/** Recursive-resolver behaviour over the merged records: CNAME chasing, NXDOMAIN vs NODATA, AD. */
function resolve(
  records: Map<string, DnsZoneRecords>,
  zoneOf: ZoneOf,
  name: string,
  type: string,
  cd: boolean,
  failure: DohFailureMode | null,
): Pick<dnsPacket.Packet, 'flags' | 'answers' | 'authorities'> {
  const base =
    dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | (cd ? dnsPacket.CHECKING_DISABLED : 0);
  if (failure === 'servfail') return { flags: base | RCODE.SERVFAIL };
  if (failure === 'refused') return { flags: base | RCODE.REFUSED };
  const answers: dnsPacket.Answer[] = [];
  let owner = name;
  let validated = true;
  for (let hop = 0; hop < 16; hop += 1) {
    const dnssec = zoneOf(owner)?.dns.dnssec ?? 'unsigned';
    // A validating resolver hides bogus data unless validation is disabled (RFC 4035 §3.2.2).
    if (dnssec === 'bogus' && !cd) return { flags: base | RCODE.SERVFAIL };
    validated &&= dnssec === 'signed' && !cd;
    const set = records.get(owner);
    const ttl = zoneOf(owner)?.dns.ttlSeconds ?? 300;
    const found = set ? toAnswers(owner, type, set, ttl) : [];
    if (found.length > 0) {
      answers.push(...found);
      break;
    }
    if (type === 'CNAME' || !set?.CNAME) break;
    answers.push({ type: 'CNAME', name: owner, ttl, data: set.CNAME });
    owner = set.CNAME;
  }
  const flags = base | (validated ? dnsPacket.AUTHENTIC_DATA : 0);
  if (answers.length > 0 && answers.at(-1)?.type !== 'CNAME') return { flags, answers };
  const exists = nameExists(records, owner);
  const authorities = [negativeSoa(zoneOf, owner)];
  return { flags: flags | (exists ? RCODE.NOERROR : RCODE.NXDOMAIN), answers, authorities };
}

/** A name exists when it owns records or is an empty non-terminal above one (RFC 8020). */
function nameExists(records: Map<string, DnsZoneRecords>, name: string): boolean {
  if (records.has(name)) return true;
  for (const owner of records.keys()) if (owner.endsWith(`.${name}`)) return true;
  return false;
}

function negativeSoa(zoneOf: ZoneOf, name: string): dnsPacket.Answer {
  const zone = zoneOf(name);
  const apex = zone?.domain ?? name.split('.').at(-1) ?? name;
  const negative = zone?.dns.negativeTtlSeconds ?? 300;
  return {
    type: 'SOA',
    name: apex,
    ttl: negative,
    data: {
      mname: `ns1.${apex}`,
      rname: `hostmaster.${apex}`,
      serial: SOA_SERIAL,
      refresh: 7200,
      retry: 900,
      expire: 1209600,
      minimum: negative,
    },
  };
}

function toAnswers(name: string, type: string, set: DnsZoneRecords, ttl: number): dnsPacket.Answer[] {
  switch (type) {
    case 'A':
    case 'AAAA':
    case 'NS':
      return (set[type] ?? []).map((data) => ({ type, name, ttl, data }));
    case 'CNAME':
      return set.CNAME ? [{ type, name, ttl, data: set.CNAME }] : [];
    case 'MX':
      return (set.MX ?? []).map((mx) => ({
        type,
        name,
        ttl,
        data: { preference: mx.priority, exchange: mx.host },
      }));
    case 'TXT':
      // Copies: dns-packet's TXT encoder rewrites the array it is given.
      return (set.TXT ?? []).map((text) => ({
        type,
        name,
        ttl,
        data: Array.isArray(text) ? [...text] : [text],
      }));
    case 'CAA':
      return (set.CAA ?? []).map((caa) => ({
        type,
        name,
        ttl,
        data: { flags: caa.flags ?? 0, tag: caa.tag as 'issue', value: caa.value },
      }));
    case 'DS':
      return (set.DS ?? []).map((ds) => ({
        type,
        name,
        ttl,
        data: { ...ds, digest: Buffer.from(ds.digest, 'hex') },
      }));
    case 'DNSKEY':
      return (set.DNSKEY ?? []).map((key) => ({
        type,
        name,
        ttl,
        data: { ...key, key: Buffer.from(key.key, 'base64') },
      }));
    default:
      return [];
  }
}

/** One name → records map over every scenario; the same name defined twice must agree. */
function mergeRecords(scenarios: Map<string, Scenario>): Map<string, DnsZoneRecords> {
  const merged = new Map<string, DnsZoneRecords>();
  for (const scenario of scenarios.values()) {
    for (const [owner, set] of Object.entries(scenario.dns?.records ?? {})) {
      const name = owner.toLowerCase();
      const seen = merged.get(name);
      if (seen && JSON.stringify(seen) !== JSON.stringify(set)) {
        throw new Error(`scenario ${scenario.domain}: records for ${name} differ from another scenario's`);
      }
      merged.set(name, set);
    }
  }
  return merged;
}
