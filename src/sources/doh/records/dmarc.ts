/**
 * Which TXT strings are DMARC Policy Records and which names the DNS Tree Walk queries (RFC 9989
 * §4.7, §4.10), as the DNS gathering needs them before the assessment in checks/dns/dmarc.ts.
 */
/** The TXT strings found at one `_dmarc.` name. */
export interface DmarcLookup {
  /** The queried name, e.g. `_dmarc.shop.co.uk`. */
  name: string;
  txt: readonly string[];
}

/**
 * RFC 9989 §4.7 "v": the first tag, whose value "DMARC1" is case sensitive; anything else (a
 * lower-case value, leading white space, another tag first) means the record is ignored. The tag
 * name itself is an ABNF literal (case-insensitive) and `=` may have white space around it (§4.8).
 */
export function isDmarcRecord(text: string): boolean {
  return /^[vV][ \t]*=[ \t]*DMARC1[ \t]*(;|$)/.test(text);
}

/** Most names a DNS Tree Walk queries, the Author Domain's own included (RFC 9989 §4.10). */
const TREE_WALK_MAX_QUERIES = 8;

/**
 * The domains the DNS Tree Walk queries after the domain itself (RFC 9989 §4.10 steps 3-7): its
 * parents up to the TLD, jumping straight to seven labels when it has eight or more.
 */
export function dmarcTreeWalk(domain: string): string[] {
  const labels = domain.split('.');
  const first = labels.length >= TREE_WALK_MAX_QUERIES ? labels.length - (TREE_WALK_MAX_QUERIES - 1) : 1;
  return labels.slice(first).map((_, index) => labels.slice(first + index).join('.'));
}
