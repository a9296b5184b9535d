/**
 * DNS-PERSIST-01 (draft-ietf-acme-dns-persist-01, March 2026): a standing TXT record at
 * `_validation-persist.<domain>` that lets one CA account validate the domain again and again.
 * Parsed as the draft and Let's Encrypt's validation authority (Boulder) read it:
 * - the value is an RFC 8659 issue-value: `<issuer-domain-name>; tag=value; …`, the record's
 *   character-strings joined with nothing between them;
 * - the issuer domain name is normalized (lower case, NFC, A-labels, no trailing dot, at most 253
 *   octets, §9.2) and compared byte for byte by the CA;
 * - tags are case-insensitive; `accounturi` is mandatory; `policy` (`wildcard`, case-insensitive;
 *   any other value counts as absent) and `persistUntil` (a base-10 UNIX time) are optional;
 *   unknown tags are ignored; a repeated known tag, an empty parameter (a stray `;`), a value with
 *   a space or a character outside printable ASCII, or a `persistUntil` that is not an integer
 *   makes the record malformed (the CA answers `malformed` and validates nothing with it);
 * - every record is an independent authorization, for its own issuer (several may coexist).
 * Pure: no I/O, the time is passed in.
 */
import { lookupToAscii } from '../../domain/idna.ts';
import { type Finding, toTimestamp } from '../result-common.ts';
import { DNS_FINDING, dnsFinding } from './findings.ts';

/** One parsed record, as the result reports it (docs/checks/dns.md). */
export interface ValidationPersistRecord {
  /** The normalized issuer domain name, e.g. `letsencrypt.org`. */
  issuer: string;
  account_uri: string;
  /** The `policy` value in lower case (`wildcard` widens the scope), null when absent. */
  policy: string | null;
  /** `persistUntil` as an RFC 3339 time, null when absent. */
  persist_until: string | null;
}

export type ParsedPersistRecord =
  { ok: true; record: ValidationPersistRecord } | { ok: false; reason: string };

/** `persistUntil` within this many days (or past) raises `dns.validation_persist_expiring`. */
export const PERSIST_EXPIRING_DAYS = 30;
/** Most records reported; a zone is not expected to authorize more than a few CAs. */
export const MAX_PERSIST_RECORDS = 20;
/** Longest record text quoted as a finding's evidence. */
const MAX_EVIDENCE_CHARS = 300;
const DAY_MS = 86_400_000;
/** The RFC 3339 range (years 0000–9999) in UNIX seconds. */
const EARLIEST_SECONDS = -62_167_219_200n;
const LATEST_SECONDS = 253_402_300_799n;

/** RFC 8659 §4: tag = 1*(ALPHA / DIGIT); value = *(%x21-3A / %x3C-7E). */
const TAG = /^[A-Za-z0-9]+$/;
const VALUE = /^[\x21-\x3a\x3c-\x7e]*$/;
/**
 * Strips RFC 5234 WSP, the only white space RFC 8659 allows around the parts. A loop, not
 * `/[ \t]+$/`: on a run of spaces inside a 64 KiB record that pattern takes quadratic time.
 */
function trimWsp(text: string): string {
  const isWsp = (at: number) => text[at] === ' ' || text[at] === '\t';
  let start = 0;
  let end = text.length;
  while (start < end && isWsp(start)) start += 1;
  while (end > start && isWsp(end - 1)) end -= 1;
  return text.slice(start, end);
}

/** Parses one `_validation-persist` TXT record (its character-strings already joined). */
export function parseValidationPersist(text: string): ParsedPersistRecord {
  const [rawIssuer = '', ...parameters] = text.split(';');
  const issuerText = trimWsp(rawIssuer);
  if (issuerText === '') return malformed('it names no issuer domain name before the first `;`');
  const issuer = lookupToAscii(issuerText);
  if (issuer === null) {
    const quoted = issuerText.includes('"') ? ' (it holds literal quote characters)' : '';
    return malformed(`the issuer domain name ${JSON.stringify(issuerText)} is not a domain name${quoted}`);
  }
  const seen = new Map<string, string>();
  for (const parameter of parameters.map(trimWsp)) {
    if (parameter === '') return malformed('it has an empty parameter (a stray or trailing `;`)');
    const equals = parameter.indexOf('=');
    if (equals < 0) return malformed(`the parameter ${JSON.stringify(parameter)} is not tag=value`);
    const tag = trimWsp(parameter.slice(0, equals));
    const value = trimWsp(parameter.slice(equals + 1));
    if (!TAG.test(tag)) return malformed(`the tag ${JSON.stringify(tag)} is not letters and digits`);
    if (!VALUE.test(value))
      return malformed(`the ${tag} value holds a space, a control character or a non-ASCII character`);
    const known = tag.toLowerCase();
    if (!['accounturi', 'policy', 'persistuntil'].includes(known)) continue;
    if (seen.has(known)) return malformed(`the ${tag} parameter appears twice`);
    seen.set(known, value);
  }
  const accountUri = seen.get('accounturi');
  if (!accountUri) return malformed('it has no accounturi, which the draft requires');
  const persistUntil = seen.get('persistuntil');
  let persistUntilTime: string | null = null;
  if (persistUntil !== undefined) {
    if (!/^[+-]?[0-9]+$/.test(persistUntil))
      return malformed(`persistUntil ${JSON.stringify(persistUntil)} is not a base-10 UNIX time`);
    const seconds = BigInt(persistUntil);
    if (seconds < EARLIEST_SECONDS || seconds > LATEST_SECONDS)
      return malformed(`persistUntil ${persistUntil} is outside the years 0000–9999`);
    persistUntilTime = toTimestamp(new Date(Number(seconds) * 1000));
  }
  const policy = seen.get('policy');
  return {
    ok: true,
    record: {
      issuer,
      account_uri: accountUri,
      policy: policy === undefined ? null : policy.toLowerCase(),
      persist_until: persistUntilTime,
    },
  };
}

/** The records at `_validation-persist.<domain>` and their findings, judged at `now`. */
export function assessValidationPersist(
  domain: string,
  txt: readonly string[],
  now: Date,
): { records: ValidationPersistRecord[]; findings: Finding[] } {
  const owner = `_validation-persist.${domain}`;
  const records: ValidationPersistRecord[] = [];
  const findings: Finding[] = [];
  const malformedRecords: { text: string; reason: string }[] = [];
  for (const text of txt) {
    const parsed = parseValidationPersist(text);
    if (!parsed.ok) {
      malformedRecords.push({ text, reason: parsed.reason });
      continue;
    }
    if (records.length >= MAX_PERSIST_RECORDS) continue;
    records.push(parsed.record);
    const expiring = expiringFinding(owner, parsed.record, text, now);
    if (expiring) findings.push(expiring);
  }
  const [first] = malformedRecords;
  if (first) {
    const others = malformedRecords.length - 1;
    const more = others > 0 ? ` (and ${others} more malformed record${others > 1 ? 's' : ''})` : '';
    const message = `A TXT record at ${owner} is not a valid DNS-PERSIST-01 record: ${first.reason}${more}; CAs refuse to validate with it.`;
    findings.push(
      dnsFinding(DNS_FINDING.validationPersistMalformed, 'warning', message, evidence(first.text)),
    );
  }
  return { records, findings };
}

function expiringFinding(
  owner: string,
  record: ValidationPersistRecord,
  text: string,
  now: Date,
): Finding | null {
  if (record.persist_until === null) return null;
  const msLeft = Date.parse(record.persist_until) - now.getTime();
  if (msLeft > PERSIST_EXPIRING_DAYS * DAY_MS) return null;
  const date = record.persist_until.slice(0, 10);
  const whose = `The DNS-PERSIST-01 record at ${owner} for ${record.issuer} (account ${record.account_uri})`;
  const message =
    msLeft <= 0
      ? `${whose} expired on ${date} (persistUntil): the CA refuses new validations with it, so renewals that rely on it fail until persistUntil is moved forward.`
      : `${whose} expires on ${date} (persistUntil), in ${Math.ceil(msLeft / DAY_MS)} days: after that the CA refuses new validations with it, so renewals that rely on it fail unless persistUntil is moved forward.`;
  return dnsFinding(DNS_FINDING.validationPersistExpiring, 'warning', message, evidence(text));
}

function evidence(text: string): string {
  return text.length > MAX_EVIDENCE_CHARS ? `${text.slice(0, MAX_EVIDENCE_CHARS)}…` : text;
}

function malformed(reason: string): ParsedPersistRecord {
  return { ok: false, reason };
}
