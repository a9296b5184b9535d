/**
 * The renewal verdict from the CA's own answer: ACME Renewal Information (RFC 9773) about the
 * current certificate, combined with CT (is there a successor?) and, on Node, the served leaf. Only
 * an outside observer holding both can say "the CA asked, the window has passed, and no successor
 * exists". Without an ARI window the verdict stays with the cadence (stall.ts).
 */
import type { Issuance } from '../../sources/ct/issuance.ts';
import { issuanceCovers } from '../../sources/ct/issuance.ts';
import type { Finding } from '../result-common.ts';
import { toTimestamp } from '../result-common.ts';
import { daysLeft } from './current-certificate.ts';
import type { AriField, Stall } from './result.ts';
import { DAY_MS, daysBetween } from './validity.ts';

export const ARI_FINDINGS = {
  windowPassed: 'cert.ari_window_passed',
  earlyRenewal: 'cert.ca_requested_early_renewal',
  implausibleWindow: 'cert.ari_window_implausible',
} as const;

/**
 * Where a CA places the usual window, as a share of the lifetime: two-thirds, half for lifetimes
 * under 10 days (Boulder's RenewalInfoSimple, ± 1 %; Let's Encrypt's `shortlived` profile).
 */
const USUAL_WINDOW_SHARE = 2 / 3;
const SHORT_LIFETIME_WINDOW_SHARE = 1 / 2;
const SHORT_LIFETIME_MS = 10 * DAY_MS;
/**
 * A window opening before this part of the usual place is the CA asking for early renewal: half
 * the lifetime for the usual two-thirds.
 */
export const EARLY_WINDOW_PART = 0.75;
/** Slack around the window when judging whether past renewals landed inside it, in days. */
export const WINDOW_SLACK_DAYS = 1;
/** Renewal intervals varying less than this (6 hours) are a schedule, not ARI's random pick. */
export const CRON_SPREAD_DAYS = 0.25;

/** The ARI answer as the verdict needs it. */
export interface AriWindowAnswer {
  status: AriField['status'];
  window: { start: Date; end: Date } | null;
  explanationUrl: string | null;
}

/** The served leaf (Node), when the probe read it. */
export interface ServedLeaf {
  serial: string;
  notBefore: Date;
}

export interface AriVerdict {
  stall: Stall;
  /** The end of the CA's window. */
  renewBy: Date;
  findings: Finding[];
}

/**
 * The verdict for `current` (the newest trusted issuance covering `domain`) from the CA's window,
 * or null when the CA gave none (not supported, not found, unavailable): then the cadence decides.
 */
export function assessAriWindow(input: {
  current: Issuance;
  issuances: readonly Issuance[];
  domain: string;
  ari: AriWindowAnswer | null;
  servedLeaf: ServedLeaf | null;
  now: Date;
}): AriVerdict | null {
  const { current, ari, now } = input;
  if (ari?.status !== 'ok' || !ari.window || !isPlausibleWindow(current, ari.window)) return null;
  const { start, end } = ari.window;
  const span = `${day(start)} to ${day(end)}`;
  const successor = successorOf(input);
  const findings: Finding[] = [];
  const verdict = (status: Stall['status'], reason: string, overdue: number | null = null): AriVerdict => ({
    stall: { status, reason, overdue_days: overdue, basis: 'ari' },
    renewBy: end,
    findings,
  });

  if (successor) {
    return verdict(
      'ok',
      `Renewed: a newer certificate was issued on ${day(successor)} (the CA's renewal window for the previous one ran ${span}).`,
    );
  }
  if (isEarlyWindow(current, ari)) findings.push(earlyRenewalFinding(current, ari));
  if (now < start) {
    // An explanation URL alone may describe the CA's usual strategy (RFC 9773 §4.2): shown, not alarmed.
    const explained = ari.explanationUrl ? ` (the CA explains its window at ${ari.explanationUrl})` : '';
    return verdict(
      'ok',
      `The CA's renewal window for the current certificate runs ${span}; renew by ${day(end)}${explained}.`,
    );
  }
  const left = daysLeft(current, now);
  const expiry = left < 0 ? `it expired ${Math.ceil(-left)} days ago` : `${Math.floor(left)} days are left`;
  if (now < end) {
    return verdict('watch', `In the CA's renewal window (${span}), not renewed yet; ${expiry}.`);
  }
  const overdue = Math.floor(daysBetween(end, now));
  findings.push({
    code: ARI_FINDINGS.windowPassed,
    severity: 'warning',
    message: `The CA's renewal window for the current certificate ended on ${day(end)} and no newer certificate has appeared in CT; ${expiry}.`,
    evidence: `suggested window ${toTimestamp(start)} to ${toTimestamp(end)}`,
  });
  return verdict(
    'stalled',
    `No renewal has appeared in CT ${overdue} days after the CA's renewal window ended on ${day(end)}; ${expiry}.`,
    overdue,
  );
}

/**
 * Whether the renewals follow the CA's window: each renewal landed inside the window placed at the
 * same share of the previous lifetime as the current certificate's window (the CA computes windows
 * that way), at varying times (an ARI client picks a random moment in the window; a cron renewing
 * on a fixed day lands on the same hour each time). Such renewals move with the lifetime, so their
 * steady interval is no fixed day that 64-day certificates would break. Null when the CA gave no
 * window or the history has fewer than two renewals.
 */
export function followsAriWindow(
  cadence: { intervalsDays: readonly number[]; renewsAtPercents: readonly number[] },
  current: { notBefore: Date; notAfter: Date },
  ari: AriWindowAnswer | null,
): boolean | null {
  if (ari?.status !== 'ok' || !ari.window || !isPlausibleWindow(current, ari.window)) return null;
  if (isEarlyWindow(current, ari)) return null;
  const { intervalsDays, renewsAtPercents } = cadence;
  if (intervalsDays.length < 2) return null;
  const lifetime = current.notAfter.getTime() - current.notBefore.getTime();
  const share = (at: Date) => ((at.getTime() - current.notBefore.getTime()) / lifetime) * 100;
  const slack = ((WINDOW_SLACK_DAYS * DAY_MS) / lifetime) * 100;
  const [from, to] = [share(ari.window.start) - slack, share(ari.window.end) + slack];
  const inWindow = renewsAtPercents.every((percent) => percent >= from && percent <= to);
  const spread = Math.max(...intervalsDays) - Math.min(...intervalsDays);
  return inWindow && spread >= CRON_SPREAD_DAYS;
}

/**
 * A window opening well before the usual place (before half the lifetime; before three-eighths of
 * a lifetime under 10 days): the CA asks for early renewal. An explanation URL alone is no such
 * request: RFC 9773 §4.2 lets it describe the CA's normal strategy.
 */
function isEarlyWindow(current: { notBefore: Date; notAfter: Date }, ari: AriWindowAnswer): boolean {
  const lifetime = current.notAfter.getTime() - current.notBefore.getTime();
  const usual = lifetime < SHORT_LIFETIME_MS ? SHORT_LIFETIME_WINDOW_SHARE : USUAL_WINDOW_SHARE;
  return (
    ari.window !== null &&
    ari.window.start.getTime() < current.notBefore.getTime() + lifetime * usual * EARLY_WINDOW_PART
  );
}

/**
 * A window that ends after the certificate expires asks for a renewal the certificate cannot wait
 * for: no CA means it (a window from 1970 to 9999 has been seen), so it never becomes the verdict.
 */
function isPlausibleWindow(current: { notAfter: Date }, window: { start: Date; end: Date }): boolean {
  return window.end.getTime() <= current.notAfter.getTime();
}

/** `cert.ari_window_implausible` (info) when the CA's window cannot be meant, or nothing. */
export function implausibleWindowFindings(current: Issuance, ari: AriWindowAnswer | null): Finding[] {
  if (ari?.status !== 'ok' || !ari.window || isPlausibleWindow(current, ari.window)) return [];
  const { start, end } = ari.window;
  return [
    {
      code: ARI_FINDINGS.implausibleWindow,
      severity: 'info',
      message: `The CA's renewal window (${day(start)} to ${day(end)}) ends after the certificate expires on ${day(current.notAfter)}: it cannot be meant, so the verdict comes from the renewal history in CT.`,
      evidence: `suggested window ${toTimestamp(start)} to ${toTimestamp(end)}; not_after ${toTimestamp(current.notAfter)}`,
    },
  ];
}

function earlyRenewalFinding(current: Issuance, ari: AriWindowAnswer): Finding {
  const opens = ari.window
    ? ` (its renewal window opens on ${day(ari.window.start)}, early in a lifetime ending ${day(current.notAfter)})`
    : '';
  const see = ari.explanationUrl ? `; the CA explains why at ${ari.explanationUrl}` : '';
  return {
    code: ARI_FINDINGS.earlyRenewal,
    severity: 'warning',
    message: `The CA asked for early renewal of the current certificate${opens}${see}.`,
    ...(ari.explanationUrl ? { evidence: ari.explanationUrl } : {}),
  };
}

/** When a certificate of its CA newer than `current` appeared: in CT for the name, or served by the site. */
function successorOf(input: {
  current: Issuance;
  issuances: readonly Issuance[];
  domain: string;
  servedLeaf: ServedLeaf | null;
}): Date | null {
  const { current, domain, servedLeaf } = input;
  // A successor comes from the same CA: another CA's newer certificate is a backup or a move the
  // site has not deployed (judged-certificate.ts), never this certificate's renewal.
  const newer = input.issuances
    .filter(
      (issuance) =>
        issuanceCovers(issuance, domain) &&
        issuance.issuer === current.issuer &&
        issuance.notBefore > current.notBefore,
    )
    .map((issuance) => issuance.notBefore);
  // CT logs lag an issuance by minutes to hours; a site already serving the next one has renewed.
  if (servedLeaf && servedLeaf.serial !== current.serial && servedLeaf.notBefore > current.notBefore) {
    newer.push(servedLeaf.notBefore);
  }
  return newer.sort((a, b) => a.getTime() - b.getTime())[0] ?? null;
}

function day(date: Date): string {
  return toTimestamp(date).slice(0, 10);
}
