/** Runs the three checks concurrently (wall time ≈ the slowest, not the sum) and composes the bundle. */
import type { CheckRunners } from '../../catalog.ts';
import type { ValidDomain } from '../../domain/normalize.ts';
import type { RunOutcome } from '../outcome.ts';
import { composeSiteHealth } from './compose.ts';
import type { SiteHealthResult } from './result.ts';

export interface SiteHealthDeps extends Pick<CheckRunners, 'cert' | 'dns' | 'expiry'> {
  now: () => Date;
}

export function createSiteHealthRunner(
  deps: SiteHealthDeps,
): (domain: ValidDomain) => Promise<RunOutcome<SiteHealthResult>> {
  return async function siteHealth(domain) {
    const [cert, dns, expiry] = await Promise.all([deps.cert(domain), deps.dns(domain), deps.expiry(domain)]);
    return composeSiteHealth({ domain, cert, dns, expiry, now: deps.now() });
  };
}
