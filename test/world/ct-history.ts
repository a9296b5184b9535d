/**
 * CT world data shared by the crt.sh and Cert Spotter fakes: a scenario's certificates, given
 * relative to "now" so manual world runs stay current, and the CAs that issue them.
 */
import { createHash } from 'node:crypto';
import type { Scenario } from './scenario.ts';

const DAY_MS = 86_400_000;

/**
 * Issuing CAs as crt.sh and Cert Spotter print them (the Cloudflare DN shows crt.sh's quoting).
 * `friendlyName` is Cert Spotter's own `issuer.friendly_name`, which crt.sh lacks; for the
 * DigiCert-operated Cloudflare intermediate it says DigiCert. `unknown` is crt.sh's row for a
 * certificate whose issuer it cannot find (issuer_ca_id -1), as recorded in the wild.
 */
export const CT_ISSUERS = {
  'le-r11': { dn: "C=US, O=Let's Encrypt, CN=R11", caId: 295814, friendlyName: "Let's Encrypt" },
  'le-e8': { dn: "C=US, O=Let's Encrypt, CN=E8", caId: 295819, friendlyName: "Let's Encrypt" },
  sectigo: {
    dn: 'C=GB, ST=Greater Manchester, L=Salford, O=Sectigo Limited, CN=Sectigo RSA Domain Validation Secure Server CA',
    caId: 1397,
    friendlyName: 'Sectigo',
  },
  google: {
    dn: 'C=US, O=Google Trust Services, CN=WR1',
    caId: 380012,
    friendlyName: 'Google Trust Services',
  },
  cloudflare: {
    dn: 'C=US, O="Cloudflare, Inc.", CN=Cloudflare Inc ECC CA-3',
    caId: 78576,
    friendlyName: 'DigiCert',
  },
  unknown: { dn: 'Issuer Not Found', caId: -1, friendlyName: '' },
} as const;
export type CtIssuerKey = keyof typeof CT_ISSUERS;

/** One certificate in a scenario, dated relative to the fake's clock. */
export interface CtCertificate {
  issuer: CtIssuerKey;
  /** DNS SANs, lower case. */
  names: string[];
  /**
   * Subject CN; default the first name; null for profiles without a CN (LE `tlsserver`). Old and
   * private certificates put other text there, such as an organisation name or an e-mail address.
   */
  commonName?: string | null;
  /** rfc822Name SANs (e-mail addresses), which crt.sh lists as identities too. */
  emails?: string[];
  /** Days between notBefore and now (fractions allowed). */
  issuedDaysAgo: number;
  /** Default 90. notAfter is notBefore + lifetime − 1 s, as Let's Encrypt issues. */
  lifetimeDays?: number;
  /** Lower-case hex; default derived from the names and date. */
  serial?: string;
  /** False: never seen in a CT log (crt.sh `entry_timestamp` null). Default true. */
  logged?: boolean;
}

export type CrtshMode =
  | 'ok'
  | 'html_error' // 200 text/html error page from the SQL function
  | 'db_error' // 503 text/html "ERROR!" page (statement timeout)
  | 'gateway_error' // 503 text/plain `ERROR` (crtsh-web's own deadline)
  | 'bad_gateway' // nginx 502
  | 'gateway_timeout' // nginx 504
  | 'hang'
  | 'truncated' // JSON cut off mid-body
  | 'oversized' // a body over 5 MB
  | 'empty'; // 200 `[]` although the database holds certificates (seen for a domain with six)

export type CertspotterMode = 'ok' | 'rate_limited' | 'server_error' | 'hang';

/** The `ct` section of a scenario. */
export interface CtScenario {
  certificates: CtCertificate[];
  /** `mode` answers the searches, `downloadMode` the certificate downloads (`?d=`) of this scenario's certificates. */
  crtsh?: { mode?: CrtshMode; delayMs?: number; downloadMode?: CrtshMode };
  certspotter?: { mode?: CertspotterMode; delayMs?: number };
}

/** A scenario certificate with real dates. */
export interface DatedCertificate {
  issuer: (typeof CT_ISSUERS)[CtIssuerKey];
  names: string[];
  commonName: string | null;
  emails: string[];
  serial: string;
  notBefore: Date;
  notAfter: Date;
  /** When the precertificate entered a log; null when never logged. */
  loggedAt: Date | null;
}

/** One scenario certificate dated against `now`. */
export function datedCertificate(cert: CtCertificate, now: Date): DatedCertificate {
  // Whole seconds, backdated an hour before the log entry, as Let's Encrypt does.
  const notBefore = new Date(Math.floor((now.getTime() - cert.issuedDaysAgo * DAY_MS) / 1000) * 1000);
  const loggedAt = new Date(notBefore.getTime() + 3_600_000 + (notBefore.getTime() % 997) * 7);
  // Let's Encrypt serials are 18 bytes starting 03 or 04.
  const derived = createHash('sha256')
    .update(`${cert.names.join(',')}|${cert.issuedDaysAgo}`)
    .digest('hex');
  return {
    issuer: CT_ISSUERS[cert.issuer],
    names: cert.names,
    commonName: cert.commonName === undefined ? (cert.names[0] ?? null) : cert.commonName,
    emails: cert.emails ?? [],
    serial: cert.serial ?? `04${derived.slice(0, 34)}`,
    notBefore,
    notAfter: new Date(notBefore.getTime() + (cert.lifetimeDays ?? 90) * DAY_MS - 1000),
    loggedAt: cert.logged === false ? null : loggedAt,
  };
}

/** Every scenario's certificates dated against `now`, in discovery order (oldest log entry first). */
export function datedCertificates(scenarios: Map<string, Scenario>, now: Date): DatedCertificate[] {
  const dated = [...scenarios.values()].flatMap((scenario) =>
    (scenario.ct?.certificates ?? []).map((cert) => datedCertificate(cert, now)),
  );
  const discovered = (cert: DatedCertificate) => (cert.loggedAt ?? cert.notBefore).getTime();
  return dated.sort((a, b) => discovered(a) - discovered(b));
}

/** The scenario owning a queried name: the name itself or the nearest parent (`*.` and `%` stripped). */
export function scenarioForName(scenarios: Map<string, Scenario>, name: string): Scenario | undefined {
  const labels = name
    .toLowerCase()
    .replace(/^[%*]*\.?/, '')
    .replaceAll('%', '')
    .split('.');
  for (let start = 0; start < labels.length - 1; start++) {
    const scenario = scenarios.get(labels.slice(start).join('.'));
    if (scenario) return scenario;
  }
  return undefined;
}

/** A regular renewal history: `count` certificates, the newest issued `lastIssuedDaysAgo`, spaced by `everyDays`. */
export function renewalSeries(options: {
  issuer: CtIssuerKey;
  names: string[];
  count: number;
  lastIssuedDaysAgo: number;
  /** One interval for every gap, or one per gap (newest gap first). */
  everyDays: number | number[];
  lifetimeDays?: number;
}): CtCertificate[] {
  const gaps = Array.from({ length: options.count - 1 }, (_, i) =>
    Array.isArray(options.everyDays) ? (options.everyDays[i] ?? 0) : options.everyDays,
  );
  let daysAgo = options.lastIssuedDaysAgo;
  const series: CtCertificate[] = [];
  for (let i = 0; i < options.count; i++) {
    series.push({
      issuer: options.issuer,
      names: options.names,
      issuedDaysAgo: daysAgo,
      lifetimeDays: options.lifetimeDays,
    });
    daysAgo += gaps[i] ?? 0;
  }
  return series;
}
