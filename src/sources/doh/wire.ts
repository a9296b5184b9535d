/**
 * RFC 8484 wire format: the DNS query message we send and the reading of the response message
 * (RCODE, AD bit, CNAME chain, typed records, cache TTL), both through `dns-packet`.
 */
import dnsPacket from 'dns-packet';
import { fail, type SourceResult, succeed } from '../failure.ts';
import { canonicalName, type DnsAnswer, type DnsRecord, type DnsRecordType } from './answer.ts';

/** The part of an answer that comes from the message itself. */
export type DecodedAnswer = Omit<DnsAnswer, 'resolver' | 'ms' | 'cached' | 'fellBack' | 'attempts'>;

/** Longest CNAME chain followed inside one answer. */
const MAX_CNAME_HOPS = 16;
/** EDNS UDP size advertised; irrelevant over HTTPS but required in the OPT record. */
const EDNS_PAYLOAD_BYTES = 1232;

/** Encodes a query with DNS id 0 (RFC 8484 §4.1), RD set, EDNS DO bit, and CD when asked. */
export function encodeQuery(name: string, type: DnsRecordType, cd: boolean): Uint8Array {
  return dnsPacket.encode({
    type: 'query',
    id: 0,
    flags: dnsPacket.RECURSION_DESIRED | (cd ? dnsPacket.CHECKING_DISABLED : 0),
    questions: [{ type, name, class: 'IN' }],
    additionals: [
      {
        type: 'OPT',
        name: '.',
        udpPayloadSize: EDNS_PAYLOAD_BYTES,
        extendedRcode: 0,
        ednsVersion: 0,
        flags: dnsPacket.DNSSEC_OK,
        flag_do: true,
        options: [],
      },
    ],
  });
}

/** base64url without padding, as the `dns` GET parameter wants (RFC 8484 §4.1). */
export function toBase64Url(message: Uint8Array): string {
  return Buffer.from(message).toString('base64url');
}

/**
 * Reads a response message. NOERROR (including NODATA) and NXDOMAIN are data; SERVFAIL and REFUSED
 * are the failures `servfail` and `refused`; any other RCODE or an unreadable message is `malformed`.
 */
export function decodeResponse(
  source: string,
  body: Uint8Array,
  name: string,
  type: DnsRecordType,
): SourceResult<DecodedAnswer> {
  let packet: dnsPacket.DecodedPacket & { rcode?: string };
  try {
    packet = dnsPacket.decode(Buffer.from(body)) as dnsPacket.DecodedPacket & { rcode?: string };
  } catch (error) {
    return fail({
      code: 'malformed',
      source,
      detail: `${source} sent a body that is not a DNS message`,
      cause: error,
    });
  }
  const question = packet.questions?.[0];
  if (!packet.flag_qr || !question || canonicalName(question.name) !== name || question.type !== type) {
    return fail({
      code: 'malformed',
      source,
      detail: `${source} answered a different question than ${name} ${type}`,
    });
  }
  if (packet.rcode === 'SERVFAIL') {
    return fail({ code: 'servfail', source, detail: `${source} answered SERVFAIL for ${name} ${type}` });
  }
  if (packet.rcode === 'REFUSED') {
    return fail({ code: 'refused', source, detail: `${source} answered REFUSED for ${name} ${type}` });
  }
  if (packet.rcode !== 'NOERROR' && packet.rcode !== 'NXDOMAIN') {
    return fail({
      code: 'malformed',
      source,
      detail: `${source} answered ${packet.rcode} for ${name} ${type}`,
    });
  }
  const answers = packet.answers ?? [];
  const { cnames, owner } = followChain(answers, name, type);
  const records: DnsRecord[] = [];
  const ttls: number[] = [];
  const aliasOwners = new Set([name, ...cnames].filter((alias) => alias !== owner));
  for (const answer of answers) {
    const answerOwner = canonicalName(answer.name);
    if (answer.type === 'CNAME' && aliasOwners.has(answerOwner)) ttls.push(answer.ttl ?? 0);
    if (answer.type !== type || answerOwner !== owner) continue;
    const record = toRecord(answer);
    if (record) records.push(record);
    ttls.push(answer.ttl ?? 0);
  }
  return succeed({
    name,
    type,
    rcode: packet.rcode,
    ad: packet.flag_ad,
    cnames,
    records,
    ttlSeconds: records.length > 0 ? Math.min(...ttls) : negativeTtl(packet.authorities ?? []),
  });
}

/** Walks CNAME records by owner name from the question (RFC 1034 §3.6.2). */
function followChain(answers: dnsPacket.Answer[], name: string, type: DnsRecordType) {
  const cnames: string[] = [];
  let owner = name;
  if (type === 'CNAME') return { cnames, owner };
  for (let hop = 0; hop < MAX_CNAME_HOPS; hop += 1) {
    const alias = answers.find((answer) => answer.type === 'CNAME' && canonicalName(answer.name) === owner);
    if (alias?.type !== 'CNAME') break;
    const target = canonicalName(alias.data);
    // A looping chain is the zone's fault; stop where it repeats.
    if (target === name || cnames.includes(target)) break;
    cnames.push(target);
    owner = target;
  }
  return { cnames, owner };
}

/** Negative caching: the SOA TTL capped by its MINIMUM field (RFC 2308 §5); 0 without an SOA. */
function negativeTtl(authorities: dnsPacket.Answer[]): number {
  const soa = authorities.find((answer) => answer.type === 'SOA');
  if (soa?.type !== 'SOA') return 0;
  return Math.min(soa.ttl ?? 0, soa.data.minimum ?? 0);
}

function toRecord(answer: dnsPacket.Answer): DnsRecord | null {
  switch (answer.type) {
    case 'A':
      return { type: 'A', address: answer.data };
    case 'AAAA':
      return { type: 'AAAA', address: answer.data };
    case 'CNAME':
      return { type: 'CNAME', host: canonicalName(answer.data) };
    case 'NS':
      return { type: 'NS', host: canonicalName(answer.data) };
    case 'MX':
      return { type: 'MX', priority: answer.data.preference ?? 0, host: canonicalName(answer.data.exchange) };
    case 'TXT':
      return { type: 'TXT', text: joinCharacterStrings(answer.data) };
    case 'CAA':
      return {
        type: 'CAA',
        flags: answer.data.flags ?? 0,
        tag: answer.data.tag.toLowerCase(),
        value: answer.data.value,
      };
    case 'DS':
      return {
        type: 'DS',
        keyTag: answer.data.keyTag,
        algorithm: answer.data.algorithm,
        digestType: answer.data.digestType,
        digest: answer.data.digest.toString('hex'),
      };
    case 'DNSKEY':
      return { type: 'DNSKEY', flags: answer.data.flags, algorithm: answer.data.algorithm };
    case 'SOA':
      return {
        type: 'SOA',
        mname: canonicalName(answer.data.mname),
        rname: canonicalName(answer.data.rname),
        minimum: answer.data.minimum ?? 0,
      };
    default:
      return null;
  }
}

/** Joins a TXT record's character-strings with no separator (RFC 7208 §3.3). */
function joinCharacterStrings(data: dnsPacket.TxtData): string {
  const parts = Array.isArray(data) ? data : [data];
  return parts.map((part) => (typeof part === 'string' ? part : part.toString('utf8'))).join('');
}
