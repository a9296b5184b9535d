/** CAA record sets (RFC 8659) and which one is relevant for a domain: the climb up the tree (§3). */
export interface CaaRecord {
  flags: number;
  tag: string;
  value: string;
}

export interface CaaSet {
  records: CaaRecord[];
  /** The name whose set is relevant, null when no name up to the TLD has one. */
  found_at: string | null;
}

/**
 * Names whose CAA sets matter, closest first: the domain, then each parent up to and including
 * the TLD; the root is never consulted (RFC 8659 §3).
 */
export function caaClimb(domain: string): string[] {
  const labels = domain.split('.');
  return labels.map((_, index) => labels.slice(index).join('.'));
}

/** The closest non-empty set among per-level answers ordered as `caaClimb` orders names. */
export function relevantCaaSet(levels: readonly { name: string; records: readonly CaaRecord[] }[]): CaaSet {
  const found = levels.find((level) => level.records.length > 0);
  return found ? { records: [...found.records], found_at: found.name } : { records: [], found_at: null };
}
