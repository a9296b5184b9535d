/** What a validating resolver said about a domain's DNSSEC, as gathered for the DNS check. */
export interface DnssecEvidence {
  /** The resolver set AD on the apex answers it validated. */
  ad: boolean;
  /** The parent zone publishes DS records for the domain (a signed delegation). */
  ds: boolean;
  dnskey: boolean;
  /** A query answered SERVFAIL and the same query with CD succeeded. */
  bogus: boolean;
}
