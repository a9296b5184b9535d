/**
 * Which certificate the cert check judges. Where the probe read the leaf the site serves (Node),
 * that leaf is what `certificate` and the expiry findings describe, whatever CT holds (a leaf CT
 * does not show yet is read from itself), and the renewal verdict is about its own CA's newest
 * certificate for the name: the served one, or its newer successor when the site renewed
 * (serves-newest.ts tells whether that one is deployed). A newer certificate of another CA that the
 * site does not serve (a CDN's backup, or a move to another CA not deployed) is reported beside
 * it, never instead of it: its healthy window would otherwise hide the served certificate's stall
 * and expiry. Without a served leaf (the Cloudflare Workers runtime, a probe whose handshake did
 * not complete) the verdict is about CT's newest trusted certificate, and the result says so.
 */
import { type Issuance, issuanceCovers } from '../../sources/ct/issuance.ts';
import { issuerFriendlyName } from '../../sources/ct/issuer-name.ts';
import { toTimestamp } from '../result-common.ts';
import { currentIssuance, daysLeft } from './current-certificate.ts';
import type { JudgedField, OtherCaField } from './result.ts';
import { isServed, SAME_RENEWAL_MS, type ServedCertificate } from './serves-newest.ts';

/** What the probe knows of the served certificate. */
export interface ServedView {
  /** False where the runtime cannot read the peer certificate (Cloudflare Workers: cloudflare/workerd#1041). */
  readsLeaf: boolean;
  /** The leaf read after a completed handshake (verified or refused for its certificate); null when none was read. */
  leaf: ServedCertificate | null;
}

export interface JudgedCertificate {
  /**
   * The certificate `certificate`, `days_left` and the expiry findings describe: the served leaf
   * where it is known, else CT's newest trusted one; null when there is neither.
   */
  certificate: Issuance | null;
  /**
   * The certificate whose renewal is judged (stall verdict, ARI): the served certificate's CA's
   * newest for the name (the served one, or its renewal), else CT's newest trusted one.
   */
  issuance: Issuance | null;
  /** The served leaf as an issuance (CT's row when CT holds it, else read from the leaf); null when not known. */
  served: Issuance | null;
  field: Omit<JudgedField, 'served_chain' | 'unjudged'>;
}

/** Picks the judged certificate among the trusted issuances (webpki.ts) for `domain`. */
export function judgeCertificate(
  trusted: readonly Issuance[],
  domain: string,
  view: ServedView,
): JudgedCertificate {
  const newest = currentIssuance(trusted, domain);
  const byCt = (reason: string): JudgedCertificate => ({
    certificate: newest,
    issuance: newest,
    served: null,
    field: { source: 'ct_newest', reason },
  });
  if (!view.readsLeaf) {
    return byCt(
      "This deployment (Cloudflare Workers) cannot read the certificate the site serves: the verdict is about CT's newest trusted certificate for the name, which may be a CDN's backup the site does not serve.",
    );
  }
  const { leaf } = view;
  if (!leaf) {
    return byCt(
      "The probe read no certificate from the site (no TLS handshake completed): the verdict is about CT's newest trusted certificate for the name.",
    );
  }
  const covering = trusted.filter((issuance) => issuanceCovers(issuance, domain));
  const inCt = covering.find((issuance) => isServed(issuance, leaf)) ?? null;
  // A leaf CT does not show yet (logs lag by hours) or never will (a private CA) is judged from itself.
  const served = inCt ?? leafIssuance(leaf);
  if (!issuanceCovers(served, domain)) {
    return {
      certificate: served,
      issuance: newest,
      served,
      field: {
        source: 'served',
        reason:
          "The site serves a certificate that does not cover the name: `certificate` describes it, as clients get it; the renewal verdict is about CT's newest trusted certificate for the name.",
      },
    };
  }
  const ownCa = covering.filter((issuance) => issuance.issuer === served.issuer);
  const judged = currentIssuance([...ownCa, served], domain) ?? served;
  const reason = !inCt
    ? 'CT does not show the certificate the site serves (a log not read yet, or a private CA): it is judged from the served certificate itself.'
    : judged === served
      ? 'The verdict is about the certificate the site serves.'
      : `The site serves an older certificate of ${served.issuer}: \`certificate\` and the expiry findings describe it; ${served.issuer}'s newer one, its renewal, is \`newer_certificate\` (live_probe.serves_newest tells whether it is deployed) and the renewal verdict is about it.`;
  return { certificate: served, issuance: judged, served, field: { source: 'served', reason } };
}

/** The served leaf as an issuance, for a leaf CT does not hold. */
function leafIssuance(leaf: ServedCertificate): Issuance {
  return {
    issuer: issuerFriendlyName(leaf.issuerDn),
    issuerDn: leaf.issuerDn,
    serial: leaf.serial,
    notBefore: leaf.notBefore,
    notAfter: leaf.notAfter,
    names: leaf.names ?? [],
    loggedAt: null,
    crtshId: null,
    der: null,
  };
}

/**
 * CT's newest trusted certificate of another CA, newer than the judged one, when the judged one is
 * the served certificate's: a backup when that CA issued for the name side by side with the served
 * one (before it, or with it), else a move to that CA that the site has not deployed.
 */
export function otherCaCertificate(
  trusted: readonly Issuance[],
  domain: string,
  judged: JudgedCertificate,
  now: Date,
): OtherCaField | null {
  const { issuance: current, served } = judged;
  if (!current || !served) return null;
  const others = trusted.filter(
    (issuance) => issuanceCovers(issuance, domain) && issuance.issuer !== current.issuer,
  );
  const other = currentIssuance(
    others.filter((issuance) => issuance.notBefore > current.notBefore),
    domain,
  );
  if (!other) return null;
  const sideBySide = others.some(
    (issuance) =>
      issuance.issuer === other.issuer &&
      issuance.notBefore.getTime() <= served.notBefore.getTime() + SAME_RENEWAL_MS,
  );
  return {
    issuer: other.issuer,
    issuer_dn: other.issuerDn,
    serial: other.serial,
    not_before: toTimestamp(other.notBefore),
    not_after: toTimestamp(other.notAfter),
    days_left: Math.floor(daysLeft(other, now)),
    names: other.names,
    relation: sideBySide ? 'backup' : 'move_not_deployed',
    reason: sideBySide
      ? `CT has held ${other.issuer} certificates for the name side by side with the ${served.issuer} ones the site serves: a backup (a CDN keeps one from a second CA) or another endpoint's certificate. It is not judged.`
      : `${other.issuer} first issued for the name after the certificate the site serves, which the site does not use: a move to ${other.issuer} not deployed yet (or a newly added backup, which looks the same from outside). It is not judged.`,
  };
}
