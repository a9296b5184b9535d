/**
 * Pure expiry analysis: an RDAP answer and `now` in, the contract's expiry result with findings out.
 * No I/O and no clock reads.
 */
import type { RegistryAnswer } from '../../sources/rdap/lookup.ts';
import { DISCLAIMER, type Finding, toTimestamp } from '../result-common.ts';
import { toEppStatuses } from './epp-status.ts';
import {
  DELETION_STATUSES,
  EXPIRES_SOON_CRITICAL_DAYS,
  EXPIRES_SOON_WARNING_DAYS,
  EXPIRY_FINDINGS,
  HOLD_STATUSES,
} from './findings.ts';
import type { ExpiryResult } from './result.ts';

const DAY_MS = 86_400_000;

/** Builds the expiry result for `domain` (the registrable domain that was queried) at `now`. */
export function assessExpiry(domain: string, verdict: RegistryAnswer, now: Date): ExpiryResult {
  const common = {
    domain,
    checked_at: toTimestamp(now),
    sources: verdict.sources.map(({ name, url, ok, ms, cached }) => ({ name, url, ok, ms, cached })),
    disclaimer: DISCLAIMER,
    rdap_server: verdict.server.href,
  } as const;
  if (verdict.kind === 'not_registered') {
    return {
      ...common,
      registered: false,
      registrar: { name: null, iana_id: null },
      registered_at: null,
      expires_at: null,
      updated_at: null,
      rdap_updated_at: null,
      days_left: null,
      status: [],
      status_rdap: [],
      nameservers: [],
      dnssec_delegated: false,
      findings: [
        {
          code: EXPIRY_FINDINGS.notRegistered,
          severity: 'critical',
          message: `The registry's RDAP server has no registration for ${domain}, so it is unregistered or was deleted.`,
        },
      ],
    };
  }
  const { registration } = verdict;
  const status = toEppStatuses(registration.status);
  const daysLeft = registration.expiresAt ? daysUntil(registration.expiresAt, now) : null;
  return {
    ...common,
    registered: true,
    registrar: { name: registration.registrar.name, iana_id: registration.registrar.ianaId },
    registered_at: timestampOrNull(registration.registeredAt),
    expires_at: timestampOrNull(registration.expiresAt),
    updated_at: timestampOrNull(registration.updatedAt),
    rdap_updated_at: timestampOrNull(registration.rdapUpdatedAt),
    days_left: daysLeft,
    status,
    status_rdap: [...registration.status],
    nameservers: [...registration.nameservers],
    dnssec_delegated: registration.delegationSigned,
    findings: [...expiryFindings(registration.expiresAt, now), ...statusFindings(status)],
  };
}

/** Whole days from `now` until `expiresAt`, rounded down (0 on the last day, negative once passed). */
export function daysUntil(expiresAt: Date, now: Date): number {
  return Math.floor((expiresAt.getTime() - now.getTime()) / DAY_MS);
}

function expiryFindings(expiresAt: Date | null, now: Date): Finding[] {
  if (!expiresAt) {
    return [
      {
        code: EXPIRY_FINDINGS.noExpiryDate,
        severity: 'info',
        message:
          'The registry does not publish an expiration date for this domain, so days left are unknown.',
      },
    ];
  }
  const evidence = toTimestamp(expiresAt);
  if (expiresAt.getTime() <= now.getTime()) {
    const daysAgo = Math.floor((now.getTime() - expiresAt.getTime()) / DAY_MS);
    return [
      {
        code: EXPIRY_FINDINGS.expired,
        severity: 'critical',
        message: `The registration expired ${daysAgo === 0 ? 'today' : `${plural(daysAgo, 'day')} ago`} and has not been renewed.`,
        evidence,
      },
    ];
  }
  const daysLeft = daysUntil(expiresAt, now);
  if (daysLeft > EXPIRES_SOON_WARNING_DAYS) return [];
  return [
    {
      code: EXPIRY_FINDINGS.expiresSoon,
      severity: daysLeft <= EXPIRES_SOON_CRITICAL_DAYS ? 'critical' : 'warning',
      message: `The registration expires ${daysLeft === 0 ? 'within a day' : `in ${plural(daysLeft, 'day')}`}; renew it or confirm that auto-renewal is on.`,
      evidence,
    },
  ];
}

// Statuses that matter to an owner on their own, whatever the date says.
const STATUS_RULES = [
  {
    code: EXPIRY_FINDINGS.hold,
    statuses: HOLD_STATUSES,
    message: 'The domain is on hold, so the registry does not publish it in DNS and it does not resolve.',
  },
  {
    code: EXPIRY_FINDINGS.pendingDelete,
    statuses: DELETION_STATUSES,
    message: 'The domain is in the deletion cycle and will be released unless the registrar restores it.',
  },
] as const;

function statusFindings(status: readonly string[]): Finding[] {
  return STATUS_RULES.flatMap(({ code, statuses, message }) => {
    const matched = status.filter((s) => statuses.includes(s));
    return matched.length > 0
      ? [{ code, severity: 'critical' as const, message, evidence: matched.join(', ') }]
      : [];
  });
}

function timestampOrNull(date: Date | null): string | null {
  return date ? toTimestamp(date) : null;
}

function plural(count: number, unit: string): string {
  return `${count} ${unit}${count === 1 ? '' : 's'}`;
}
