/**
 * The expiry runner and its pre-payment admission: RDAP lookup of the registrable domain, then
 * the pure analysis; an unsupported TLD is refused before any payment.
 */
import { getDomain } from 'tldts';
import type { ValidDomain } from '../../domain/normalize.ts';
import type { SourceFailure } from '../../sources/failure.ts';
import type { RdapClient } from '../../sources/rdap/client.ts';
import type { InvalidReason } from '../../domain/invalid-reasons.ts';
import type { RunOutcome } from '../outcome.ts';
import { assessExpiry } from './assess.ts';
import type { ExpiryResult } from './result.ts';

export const UNSUPPORTED_TLD = 'unsupported_tld';

/**
 * The paid expiry check answers within this many milliseconds whatever the upstreams do: the
 * bootstrap, the registry, the registrar referral and the DoH lookups of their hosts share one
 * deadline (the RDAP client's `budgetMs`).
 */
export const EXPIRY_BUDGET_MS = 10_000;

/** Runs the expiry check for one validated domain. */
export type ExpiryRunner = (domain: ValidDomain) => Promise<RunOutcome<ExpiryResult>>;
/** Decides before payment: an `invalid_input` or `upstream_failed` outcome, or null to proceed. */
export type ExpiryAdmission = (
  domain: ValidDomain,
) => Promise<Exclude<RunOutcome<never>, { type: 'result' }> | null>;

export function createExpiryRunner(deps: { rdap: RdapClient; now: () => Date }): ExpiryRunner {
  return async function runExpiry(domain) {
    const name = registryName(domain);
    const answer = await deps.rdap.lookup(name);
    if (!answer.ok) return upstreamFailed(answer.failure);
    if (answer.value.kind === 'unsupported') return { type: 'invalid_input', reason: unsupported(name) };
    return { type: 'result', result: assessExpiry(name, answer.value, deps.now()) };
  };
}

export function createExpiryAdmission(deps: { rdap: RdapClient }): ExpiryAdmission {
  return async function admitExpiry(domain) {
    const name = registryName(domain);
    const server = await deps.rdap.findServer(name);
    if (!server.ok) return upstreamFailed(server.failure);
    return server.value.base ? null : { type: 'invalid_input', reason: unsupported(name) };
  };
}

/**
 * The name the registry knows: the registrable domain under the ICANN section of the public
 * suffix list, so `blog.shop.example.co.uk` asks for `example.co.uk` and `me.github.io` for
 * `github.io` (a private suffix is not a registry).
 */
export function registryName(domain: ValidDomain): string {
  return getDomain(domain.domain, { allowPrivateDomains: false }) ?? domain.registrableDomain;
}

function unsupported(name: string): InvalidReason {
  const tld = name.slice(name.lastIndexOf('.') + 1);
  return {
    code: UNSUPPORTED_TLD,
    message: `The .${tld} registry publishes no RDAP service in the IANA bootstrap registry, so expiry data is not available for ${name}.`,
  };
}

function upstreamFailed(failure: SourceFailure): Extract<RunOutcome<never>, { type: 'upstream_failed' }> {
  return {
    type: 'upstream_failed',
    upstreams: [{ name: failure.source, error: failure.code, detail: failure.detail }],
  };
}
