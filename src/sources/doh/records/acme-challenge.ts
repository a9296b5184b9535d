/** What `_acme-challenge.<domain>` holds (RFC 8555 §8.4, DNS-01), as gathered for the DNS check. */
/** The name's CNAME target and the TXT strings at the end of its chain. */
export interface AcmeChallenge {
  txt: string[];
  cname: string | null;
}
