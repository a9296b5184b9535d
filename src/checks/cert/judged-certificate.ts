/**
 * Which certificate the cert check judges. Where the probe read the leaf the site serves (Node)
 * and CT holds it, the verdict is about that certificate's own CA: the served certificate, or its
 * newer successor from the same CA when the site renewed (serves-newest.ts tells whether that one
 * is deployed). A newer certificate of another CA that the site does not serve (a CDN's backup, or
 * a move to another CA not deployed) is reported beside it, never instead of it: its healthy window
 * would otherwise hide the served certificate's stall and expiry. Without a served leaf (the
 * Cloudflare Workers runtime, a probe with no verified handshake, a leaf CT does not show) the
 * verdict is about CT's newest trusted certificate, and the result says so.
 */
import { type Issuance, issuanceCovers } from '../../sources/ct/issuance.ts';
import { toTimestamp } from '../result-common.ts';
import { currentIssuance, daysLeft } from './current-certificate.ts';
import type { JudgedField, OtherCaField } from './result.ts';
import { isServed, SAME_RENEWAL_MS, type ServedCertificate } from './serves-newest.ts';

/** What the probe knows of the served certificate. */
export interface ServedView {
  /** False where the runtime cannot read the peer certificate (Cloudflare Workers: cloudflare/workerd#1041). */
  readsLeaf: boolean;
  /** The leaf read after a verified handshake; null when none was read. */
  leaf: ServedCertificate | null;
}

export interface JudgedCertificate {
  /** The certificate the verdict is about; null when CT holds no trusted one covering the name. */
  issuance: Issuance | null;
  /** The CT issuance of the leaf the site serves; null when not known. */
  served: Issuance | null;
  field: JudgedField;
}

/** Picks the judged certificate among the trusted issuances (webpki.ts) for `domain`. */
export function judgeCertificate(
  trusted: readonly Issuance[],
  domain: string,
  view: ServedView,
): JudgedCertificate {
  const newest = currentIssuance(trusted, domain);
  const byCt = (reason: string): JudgedCertificate => ({
    issuance: newest,
    served: null,
    field: { source: 'ct_newest', reason },
  });
  if (!newest) return byCt('CT holds no trusted certificate covering the name.');
  if (!view.readsLeaf) {
    return byCt(
      "This deployment (Cloudflare Workers) cannot read the certificate the site serves: the verdict is about CT's newest trusted certificate for the name, which may be a CDN's backup the site does not serve.",
    );
  }
  const { leaf } = view;
  if (!leaf) {
    return byCt(
      "The probe read no certificate from the site (no verified handshake): the verdict is about CT's newest trusted certificate for the name.",
    );
  }
  const covering = trusted.filter((issuance) => issuanceCovers(issuance, domain));
  const served = covering.find((issuance) => isServed(issuance, leaf)) ?? null;
  if (!served) {
    return byCt(
      "CT does not show the certificate the site serves (a private CA, or a log not read yet): the verdict is about CT's newest trusted certificate for the name.",
    );
  }
  const ownCa = covering.filter((issuance) => issuance.issuer === served.issuer);
  const judged = currentIssuance(ownCa, domain) ?? served;
  const reason =
    judged === served
      ? 'The verdict is about the certificate the site serves.'
      : `The site serves an older certificate of ${served.issuer}; the verdict is about ${served.issuer}'s newer one, its renewal (live_probe.serves_newest tells whether it is deployed).`;
  return { issuance: judged, served, field: { source: 'served', reason } };
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
