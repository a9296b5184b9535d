/**
 * RDAP status values → EPP status codes (RFC 8056 §2), e.g. `client transfer prohibited` →
 * `clientTransferProhibited`, so agents can match the codes registrars show.
 */

// RFC 8056 §2: the only pairs whose names differ; every other value is the EPP code spelled out in words.
const RENAMED: Readonly<Record<string, string>> = { active: 'ok', associated: 'linked' };

/**
 * Maps one RDAP status to its EPP code in camelCase. Tolerates values already in camelCase and
 * WHOIS-style trailing URLs (`clientHold https://icann.org/epp#clientHold`).
 */
export function toEppStatus(rdapStatus: string): string {
  const text = rdapStatus.trim().split(/\s+https?:\/\//)[0] ?? '';
  const words = text.split(/[\s_-]+/).filter((w) => w !== '');
  if (words.length === 1) {
    const word = words[0] ?? '';
    return RENAMED[word.toLowerCase()] ?? word.charAt(0).toLowerCase() + word.slice(1);
  }
  const lower = words.map((w) => w.toLowerCase());
  const renamed = RENAMED[lower.join(' ')];
  if (renamed) return renamed;
  return lower.map((w, i) => (i === 0 ? w : w.charAt(0).toUpperCase() + w.slice(1))).join('');
}

/** Maps a status list, keeping the order and dropping duplicates and empty values. */
export function toEppStatuses(rdapStatuses: readonly string[]): string[] {
  return [...new Set(rdapStatuses.map(toEppStatus).filter((s) => s !== ''))];
}
