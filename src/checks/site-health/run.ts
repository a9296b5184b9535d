/** Runs the three checks concurrently (wall time ≈ the slowest, not the sum) and composes the bundle. */
import type { ValidDomain } from '../../domain/normalize.ts';
import type { CertResult } from '../cert/result.ts';
import type { DnsResult } from '../dns/result.ts';
import type { ExpiryResult } from '../expiry/result.ts';
import type { RunOutcome } from '../outcome.ts';
import { afterRequestsSent } from '../../sources/on-the-wire.ts';
import { composeSiteHealth } from './compose.ts';
import type { SiteHealthResult } from './result.ts';

/** The three runners the bundle runs (the catalog's `CheckRunners` supplies them) and a clock. */
export interface SiteHealthDeps {
  cert(domain: ValidDomain): Promise<RunOutcome<CertResult>>;
  dns(domain: ValidDomain): Promise<RunOutcome<DnsResult>>;
  expiry(domain: ValidDomain): Promise<RunOutcome<ExpiryResult>>;
  now: () => Date;
}

export function createSiteHealthRunner(
  deps: SiteHealthDeps,
): (domain: ValidDomain) => Promise<RunOutcome<SiteHealthResult>> {
  return async function siteHealth(domain) {
    // The certificate check's CT search is the slowest path: the other checks start once it has left.
    const cert = deps.cert(domain);
    const others = afterRequestsSent().then(() => Promise.all([deps.dns(domain), deps.expiry(domain)]));
    const [certOutcome, [dns, expiry]] = await Promise.all([cert, others]);
    return composeSiteHealth({ domain, cert: certOutcome, dns, expiry, now: deps.now() });
  };
}
