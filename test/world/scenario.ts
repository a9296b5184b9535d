/**
 * A world scenario: everything the loopback fakes answer for one domain. Scenarios are data, one
 * file per domain in `scenarios/`, so adding a case is adding a file. Each fake owns one section.
 */

import type { AriScenario } from './acme.ts';
import type { CtScenario } from './ct-history.ts';
import type { DnsScenario } from './doh.ts';
import type { HttpsScenario } from './https-site.ts';
import type { RdapScenario } from './rdap-registry.ts';

export interface Scenario {
  /** The domain this scenario answers for (lower-case ASCII). */
  domain: string;
  /** One line on what the scenario exercises. */
  about: string;
  /** Registry and registrar answers for the RDAP fake (`rdap-registry.ts`). */
  rdap?: RdapScenario;
  /** Zone data for the DoH fake (`doh.ts`). */
  dns?: DnsScenario;
  /** Certificates and failure modes for the crt.sh and Cert Spotter fakes (`ct-history.ts`). */
  ct?: CtScenario;
  /** What the issuing CA's ACME Renewal Information says about the certificates (`acme.ts`). */
  ari?: AriScenario;
  /** The domain's own website for the live HTTPS probe (`https-site.ts`). */
  https?: HttpsScenario;
}
