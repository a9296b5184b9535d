/**
 * What `_acme-challenge.<domain>` holds between validations (RFC 8555 §8.4, DNS-01): normally
 * nothing. A CNAME delegates DNS-01 validation to another zone (acme-dns, a DNS provider's
 * validation service), so renewals depend on that zone; TXT tokens left behind are stale. Pure.
 */
import type { Finding } from '../result-common.ts';
import type { AcmeChallenge } from '../../sources/doh/records/acme-challenge.ts';
import { DNS_FINDING, dnsFinding } from './findings.ts';

/** Longest TXT evidence quoted, per record. */
const MAX_TOKEN_CHARS = 100;

/** The section (null when the name holds nothing) and its finding. */
export function assessAcmeChallenge(
  domain: string,
  found: AcmeChallenge,
): { acmeChallenge: AcmeChallenge | null; findings: Finding[] } {
  if (found.cname === null && found.txt.length === 0) return { acmeChallenge: null, findings: [] };
  const owner = `_acme-challenge.${domain}`;
  const tokens = found.txt.length === 1 ? 'one TXT record' : `${found.txt.length} TXT records`;
  const evidence = found.txt.map((text) => text.slice(0, MAX_TOKEN_CHARS)).join('\n');
  const message =
    found.cname === null
      ? `${owner} holds ${tokens} left from a DNS-01 validation: ACME clients normally remove their tokens, and a stale one can mislead (it looks like working DNS-01 automation, and many of them can make the answer too large for some resolvers).`
      : `${owner} is a CNAME to ${found.cname}: DNS-01 validation is delegated to that zone (acme-dns or a DNS provider's validation service), so renewals depend on it staying in place${found.txt.length > 0 ? `; it holds ${tokens} now` : ''}.`;
  const finding = dnsFinding(
    DNS_FINDING.acmeChallengePresent,
    'info',
    message,
    found.cname === null ? evidence : [`CNAME ${found.cname}`, evidence].filter(Boolean).join('\n'),
  );
  return { acmeChallenge: found, findings: [finding] };
}
