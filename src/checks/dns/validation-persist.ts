/**
 * DNS-PERSIST-01 (draft-ietf-acme-dns-persist-01, March 2026): a standing TXT record at
 * `_validation-persist.<domain>` that lets one CA account validate the domain again and again.
 * Parsed as the draft and Let's Encrypt's validation authority (Boulder) read it:
 * - the value is an RFC 8659 issue-value: `<issuer-domain-name>; tag=value; …`, the record's
 *   character-strings joined with nothing between them;
 * - the issuer domain name is normalized (lower case, NFC, A-labels, no trailing dot, at most 253
 *   octets, §9.2) and compared byte for byte by the CA;
 * - tags are case-insensitive and may hold inner hyphens (RFC 8659 §4.2 `tag`); `accounturi` is
 *   mandatory; `policy` (`wildcard`, case-insensitive; any other value counts as absent, and is
 *   reported as absent) and `persistUntil` (a base-10 UNIX time) are optional; unknown tags are
 *   ignored, though Let's Encrypt's CAA parser takes letters and digits only, so a hyphenated tag
 *   is noted (it may refuse the record); a repeated known tag, an empty parameter (a stray `;`), a
 *   value with a space or a character outside printable ASCII, or a `persistUntil` that is not an
 *   integer makes the record malformed (the CA answers `malformed` and validates nothing with it);
 *   an integer `persistUntil` beyond the RFC 3339 years 0000–9999 is valid and shown clamped to
 *   that range;
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
  /** `wildcard` (widens the scope to subdomains), or null when absent or any other value. */
  policy: 'wildcard' | null;
  /** `persistUntil` as an RFC 3339 time, null when absent. */
  persist_until: string | null;
}

export type ParsedPersistRecord =
  | {
      ok: true;
      record: ValidationPersistRecord;
      /** Unknown tags with a hyphen: valid (RFC 8659), but Let's Encrypt's CAA parser may refuse them. */
      hyphenatedTags: string[];
    }
  | { ok: false; reason: string };

/** `persistUntil` within this many days (or past) raises `dns.validation_persist_expiring`. */
export const PERSIST_EXPIRING_DAYS = 30;
/** Most records reported; a zone is not expected to authorize more than a few CAs. */
export const MAX_PERSIST_RECORDS = 20;
/** Most hyphenated tags named in a finding. */
const MAX_NOTED_TAGS = 5;
/** Let's Encrypt's issuer domain name, whose DNS-PERSIST-01 support is in staging only so far. */
const LETS_ENCRYPT = 'letsencrypt.org';
const LETS_ENCRYPT_STAGING_ONLY =
  " Let's Encrypt offers DNS-PERSIST-01 in its staging environment only so far: its production CA does not validate with this record yet.";
/** Longest record text quoted as a finding's evidence. */
const MAX_EVIDENCE_CHARS = 300;
const DAY_MS = 86_400_000;
/** The RFC 3339 range (years 0000–9999) in UNIX seconds. */
const EARLIEST_SECONDS = -62_167_219_200n;
const LATEST_SECONDS = 253_402_300_799n;

/** RFC 8659 §4.2: tag = (ALPHA / DIGIT) *( *("-") (ALPHA / DIGIT)); value = *(%x21-3A / %x3C-7E). */
const TAG = /^[A-Za-z0-9](?:-*[A-Za-z0-9])*$/;
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
  // White space is never in a domain name: refused before IDNA, which is slow on 64 KiB of it.
  const issuer = /[ \t]/.test(issuerText) ? null : lookupToAscii(issuerText);
  if (issuer === null) {
    const quoted = issuerText.includes('"') ? ' (it holds literal quote characters)' : '';
    return malformed(`the issuer domain name ${JSON.stringify(issuerText)} is not a domain name${quoted}`);
  }
  const seen = new Map<string, string>();
  const hyphenatedTags: string[] = [];
  for (const parameter of parameters.map(trimWsp)) {
    if (parameter === '') return malformed('it has an empty parameter (a stray or trailing `;`)');
    const equals = parameter.indexOf('=');
    if (equals < 0) return malformed(`the parameter ${JSON.stringify(parameter)} is not tag=value`);
    const tag = trimWsp(parameter.slice(0, equals));
    const value = trimWsp(parameter.slice(equals + 1));
    if (!TAG.test(tag))
      return malformed(`the tag ${JSON.stringify(tag)} is not letters and digits (with inner hyphens)`);
    if (!VALUE.test(value))
      return malformed(`the ${tag} value holds a space, a control character or a non-ASCII character`);
    const known = tag.toLowerCase();
    if (!['accounturi', 'policy', 'persistuntil'].includes(known)) {
      if (tag.includes('-') && hyphenatedTags.length < MAX_NOTED_TAGS) hyphenatedTags.push(tag);
      continue;
    }
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
    // Only a non-integer is malformed; a time past the RFC 3339 range is shown at its edge.
    const seconds = BigInt(persistUntil);
    const clamped =
      seconds < EARLIEST_SECONDS ? EARLIEST_SECONDS : seconds > LATEST_SECONDS ? LATEST_SECONDS : seconds;
    persistUntilTime = toTimestamp(new Date(Number(clamped) * 1000));
  }
  return {
    ok: true,
    record: {
      issuer,
      account_uri: accountUri,
      policy: seen.get('policy')?.toLowerCase() === 'wildcard' ? 'wildcard' : null,
      persist_until: persistUntilTime,
    },
    hyphenatedTags,
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
    if (parsed.hyphenatedTags.length > 0)
      findings.push(hyphenatedTagFinding(owner, parsed.record, parsed.hyphenatedTags, text));
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
  return dnsFinding(
    DNS_FINDING.validationPersistExpiring,
    'warning',
    message + stagingNote(record),
    evidence(text),
  );
}

/**
 * `dns.validation_persist_hyphenated_tag` (info): RFC 8659 §4.2 allows the tag and the draft tells
 * CAs to ignore unknown ones, but Let's Encrypt's CAA parser takes letters and digits only.
 */
function hyphenatedTagFinding(
  owner: string,
  record: ValidationPersistRecord,
  tags: readonly string[],
  text: string,
): Finding {
  const named = tags.map((tag) => `\`${tag}\``).join(', ');
  const message = `The DNS-PERSIST-01 record at ${owner} for ${record.issuer} carries the tag ${named}, which RFC 8659 allows and the draft tells CAs to ignore; Let's Encrypt's CAA parser accepts only letters and digits in tags, so it may refuse the record.${stagingNote(record)}`;
  return dnsFinding(DNS_FINDING.validationPersistHyphenatedTag, 'info', message, evidence(text));
}

function stagingNote(record: ValidationPersistRecord): string {
  return record.issuer === LETS_ENCRYPT ? LETS_ENCRYPT_STAGING_ONLY : '';
}

function evidence(text: string): string {
  return text.length > MAX_EVIDENCE_CHARS ? `${text.slice(0, MAX_EVIDENCE_CHARS)}…` : text;
}

function malformed(reason: string): ParsedPersistRecord {
  return { ok: false, reason };
}
