/** Runs the three checks concurrently (wall time ≈ the slowest, not the sum) and composes the bundle. */
import type { ValidDomain } from '../../domain/normalize.ts';
import { yieldToEventLoop } from '../../sources/json-array-slices.ts';
import type { CertResult } from '../cert/result.ts';
import type { DnsResult } from '../dns/result.ts';
import type { ExpiryResult } from '../expiry/result.ts';
import type { RunOutcome } from '../outcome.ts';
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
    // The certificate check's CT search is the slowest path: its request goes on the wire before the
    // other checks start their ~30 DoH questions, RDAP and probe (tens of milliseconds of work they
    // finish long before CT answers). Node's fetch writes a request on a reused keep-alive connection
    // from a `setImmediate`, which would otherwise wait for all of their starting work.
    const cert = deps.cert(domain);
    const others = afterTwoTurns().then(() => Promise.all([deps.dns(domain), deps.expiry(domain)]));
    const [certOutcome, [dns, expiry]] = await Promise.all([cert, others]);
    return composeSiteHealth({ domain, cert: certOutcome, dns, expiry, now: deps.now() });
  };
}

/** Two turns of the event loop: the requests started before have been written by then. */
async function afterTwoTurns(): Promise<void> {
  await yieldToEventLoop();
  await yieldToEventLoop();
}
