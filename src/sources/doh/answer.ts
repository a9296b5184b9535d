/**
 * What one DoH query yields: typed records of the asked type at the end of the CNAME chain, the
 * RCODE that counts as data (NOERROR, NXDOMAIN), the AD bit and the TTL used for caching.
 */

/** Record types the DNS check asks for. */
export type DnsRecordType = 'A' | 'AAAA' | 'CNAME' | 'NS' | 'MX' | 'TXT' | 'CAA' | 'DS' | 'DNSKEY' | 'SOA';

export type DnsRecord =
  | { type: 'A'; address: string }
  | { type: 'AAAA'; address: string }
  | { type: 'CNAME'; host: string }
  | { type: 'NS'; host: string }
  | { type: 'MX'; priority: number; host: string }
  /** Character-strings joined without separator (RFC 7208 §3.3). */
  | { type: 'TXT'; text: string }
  | { type: 'CAA'; flags: number; tag: string; value: string }
  | { type: 'DS'; keyTag: number; algorithm: number; digestType: number; digest: string }
  | { type: 'DNSKEY'; flags: number; algorithm: number }
  | { type: 'SOA'; mname: string; rname: string; minimum: number };

/** The records of type `T` from a `DnsRecord` union. */
export type RecordOf<T extends DnsRecordType> = Extract<DnsRecord, { type: T }>;

export interface DnsAnswer {
  /** The question name (lower case, no trailing dot). */
  name: string;
  type: DnsRecordType;
  /** NXDOMAIN means the final name of the chain does not exist; NOERROR with no records is NODATA. */
  rcode: 'NOERROR' | 'NXDOMAIN';
  /** The resolver validated every RRset of the answer (DNSSEC AD bit). */
  ad: boolean;
  /** CNAME targets followed from the question name, in order (empty when there is no alias). */
  cnames: string[];
  /** Records of the asked type owned by the last name of the chain. */
  records: DnsRecord[];
  /** Cache lifetime in seconds: smallest answer TTL, or the SOA negative TTL (RFC 2308 §5). */
  ttlSeconds: number;
  /** The resolver URL that answered. */
  resolver: string;
  /** Wall time of the HTTP exchange in milliseconds (0 when served from cache). */
  ms: number;
  /** True when served from the cache or joined to an identical query in flight. */
  cached: boolean;
  /** True when the primary resolver failed or was too slow and the fallback answered. */
  fellBack: boolean;
  /** Every resolver exchange behind this answer (empty when served from the cache). */
  attempts: ResolverAttempt[];
}

/** One exchange with one resolver; a primary that lost to the hedged fallback counts as failed. */
export interface ResolverAttempt {
  resolver: string;
  ok: boolean;
  ms: number;
  /** Present when the resolver's open circuit breaker skipped it. */
  skipped?: true;
}

/** The records of one type from an answer, typed. */
export function recordsOf<T extends DnsRecordType>(answer: DnsAnswer, type: T): RecordOf<T>[] {
  return answer.records.filter((record): record is RecordOf<T> => record.type === type);
}

/** TXT strings of an answer, in answer order. */
export function txtOf(answer: DnsAnswer): string[] {
  return recordsOf(answer, 'TXT').map((record) => record.text);
}

/** A DNS name as the check reports it: lower case, without the trailing dot. */
export function canonicalName(name: string): string {
  return name.toLowerCase().replace(/\.$/, '');
}
