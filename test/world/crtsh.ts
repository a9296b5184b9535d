/**
 * Loopback crt.sh: the JSON identity search as crtsh-web + certwatch_db answer it (compact rows,
 * real keys in SELECT order, precert + cert pairs, zone-less UTC times, newest first) and its
 * failure pages, and the certificate download `?d=<id>` with real bytes. The
 * whole world is one CT database, as crt.sh is.
 */
import type { ServerResponse } from 'node:http';
import { type CtCertificates, ctCertificates } from './ct-certificates.ts';
import { type CrtshMode, type DatedCertificate, datedCertificates, scenarioForName } from './ct-history.ts';
import { type LoopbackServer, startLoopbackServer } from './loopback-server.ts';
import type { Scenario } from './scenario.ts';

export interface CrtshFake extends LoopbackServer {
  /** Overrides every scenario's mode while set. */
  mode: CrtshMode | null;
  /** Extra delay before any answer, in milliseconds (added to a scenario's own delay). */
  delayMs: number;
  /** While set, every answer waits for it: a test releases crt.sh when it has seen what it needs. */
  hold: Promise<void> | null;
  /** Overrides how every certificate download (`?d=`) is answered while set. */
  downloadMode: CrtshMode | null;
}

export interface CrtshFakeOptions {
  /** The fake's clock; default the real time. */
  now?: () => Date;
  /** Where the certificates' bytes come from (share one with the other fakes); default a fresh CA's. */
  certificates?: CtCertificates;
}

/** crt.sh ids: the precertificate of the world's n-th certificate is `ID_BASE + 2n`, its final certificate the next id. */
const ID_BASE = 15_000_000_000;

/** Starts a crt.sh fake answering from the `ct` sections of `scenarios`. */
export async function startCrtsh(
  scenarios: Map<string, Scenario>,
  options: CrtshFakeOptions = {},
): Promise<CrtshFake> {
  const now = options.now ?? (() => new Date());
  const certificates = options.certificates ?? ctCertificates();
  let fake: CrtshFake | undefined;
  const server = await startLoopbackServer(async (req, res, url) => {
    // crt.sh lower-cases parameter names.
    const params = new Map([...url.searchParams].map(([key, value]) => [key.toLowerCase(), value]));
    await fake?.hold;
    const download = params.get('d');
    if (download !== undefined) {
      const found = downloadTarget(datedCertificates(scenarios, now()), download);
      const scenario = found && scenarioForName(scenarios, found.cert.names[0] ?? '')?.ct;
      const delayMs = (fake?.delayMs ?? 0) + (scenario?.crtsh?.delayMs ?? 0);
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs).unref());
      const mode = fake?.downloadMode ?? fake?.mode ?? scenario?.crtsh?.downloadMode ?? 'ok';
      return answerDownload(res, download, mode, found && (() => certificates.der(found.cert, found.kind)));
    }
    const term = params.get('identity') ?? params.get('q') ?? '';
    const scenario = scenarioForName(scenarios, term)?.ct;
    const delayMs = (fake?.delayMs ?? 0) + (scenario?.crtsh?.delayMs ?? 0);
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs).unref());
    const mode = fake?.mode ?? scenario?.crtsh?.mode ?? 'ok';
    if (mode === 'hang') return;
    if (answerFailure(mode, res)) return;
    const wantsJson = params.get('output') === 'json' || req.headers.accept === 'application/json';
    if (!wantsJson)
      return sendHtml(res, 200, htmlPage('crt.sh | Certificate Search', `<p>Search results for ${term}</p>`));
    const rows = mode === 'empty' ? [] : searchRows(datedCertificates(scenarios, now()), term, params, now());
    let body = `[${rows.map((row) => JSON.stringify(row)).join(',')}]`;
    if (mode === 'oversized')
      body = `[${Array.from({ length: 20_000 }, () => JSON.stringify(FILLER_ROW)).join(',')}]`;
    if (mode === 'truncated') body = body.slice(0, Math.max(1, Math.floor(body.length / 2)));
    res.writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' });
    res.end(body);
  });
  fake = Object.assign(server, { mode: null, delayMs: 0, hold: null, downloadMode: null });
  return fake;
}

/** The certificate behind a crt.sh id, and whether the id is its precertificate's or its own. */
function downloadTarget(
  certs: DatedCertificate[],
  id: string,
): { cert: DatedCertificate; kind: 'precertificate' | 'certificate' } | null {
  if (!/^\d+$/.test(id)) return null;
  const offset = Number(id) - ID_BASE;
  const cert = offset >= 0 ? certs[Math.floor(offset / 2)] : undefined;
  return cert ? { cert, kind: offset % 2 === 0 ? 'precertificate' : 'certificate' } : null;
}

/**
 * `?d=<id>` as certwatch_db's download_cert answers it: PEM in 64-character lines with
 * `Content-Type: application/pkix-cert` and an attachment name; an unknown id gets an HTML page.
 */
async function answerDownload(
  res: ServerResponse,
  id: string,
  mode: CrtshMode,
  der: (() => Promise<Uint8Array>) | null,
): Promise<void> {
  if (mode === 'hang') return;
  if (answerFailure(mode, res)) return;
  if (!der || mode === 'empty') {
    return sendHtml(
      res,
      200,
      htmlPage('crt.sh | Certificate not found', `<p>Certificate not found: ${id}</p>`),
    );
  }
  const lines =
    Buffer.from(await der())
      .toString('base64')
      .match(/.{1,64}/g) ?? [];
  let body = `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
  if (mode === 'truncated') body = body.slice(0, Math.floor(body.length / 2));
  if (mode === 'oversized') body = body.repeat(Math.ceil((1024 * 1024) / body.length));
  res.writeHead(200, {
    'content-type': 'application/pkix-cert',
    'content-disposition': `attachment; filename="${id}.crt"`,
  });
  res.end(body);
}

/** One crt.sh row, keys in certwatch_db's SELECT order. */
interface CrtshRow {
  issuer_ca_id: number;
  issuer_name: string;
  common_name: string | null;
  name_value: string;
  id: number;
  entry_timestamp: string | null;
  not_before: string;
  not_after: string;
  serial_number: string;
  result_count: number;
}

const FILLER_ROW: CrtshRow = {
  issuer_ca_id: 295814,
  issuer_name: "C=US, O=Let's Encrypt, CN=R11",
  common_name: 'filler.big-hoster.com',
  name_value: 'filler.big-hoster.com',
  id: 1,
  entry_timestamp: '2026-01-01T00:00:00.5',
  not_before: '2026-01-01T00:00:00',
  not_after: '2026-03-31T23:59:59',
  serial_number: '04aa',
  result_count: 1,
};

function searchRows(
  certs: DatedCertificate[],
  term: string,
  params: Map<string, string>,
  now: Date,
): CrtshRow[] {
  const matches = identityMatcher(term, params.get('match'));
  const rows: CrtshRow[] = [];
  certs.forEach((cert, index) => {
    if (params.get('exclude') === 'expired' && cert.notAfter < now) return;
    // Each (name type, name) pair is one identity row: the CN, each dNSName SAN and each e-mail
    // (rfc822Name), which crt.sh's identity index also files under its domain part.
    const emails = cert.emails.filter(
      (email) => matches(email) || matches(email.slice(email.indexOf('@') + 1)),
    );
    const identities = [...(cert.commonName ? [cert.commonName] : []), ...cert.names]
      .filter(matches)
      .concat(emails);
    if (identities.length === 0) return;
    const base = {
      issuer_ca_id: cert.issuer.caId,
      issuer_name: cert.issuer.dn,
      common_name: cert.commonName,
      name_value: [...new Set(identities)].sort().join('\n'),
    };
    const dates = { not_before: zoneless(cert.notBefore), not_after: zoneless(cert.notAfter) };
    const tail = { serial_number: cert.serial, result_count: identities.length };
    const logged = cert.loggedAt;
    // The precertificate is logged first and gets the lower id; the final certificate follows.
    const precertId = ID_BASE + index * 2;
    rows.push({
      ...base,
      id: precertId,
      entry_timestamp: logged && zoneless(logged, true),
      ...dates,
      ...tail,
    });
    if (params.get('deduplicate')?.toUpperCase() === 'Y') return;
    const certLogged = logged && new Date(logged.getTime() + 1_370);
    rows.push({
      ...base,
      id: precertId + 1,
      entry_timestamp: certLogged && zoneless(certLogged, true),
      ...dates,
      ...tail,
    });
  });
  // Default sort: entry_timestamp newest first, NULLS LAST.
  return rows.sort((a, b) => (b.entry_timestamp ?? '').localeCompare(a.entry_timestamp ?? ''));
}

/** `match==` is exact; the default ILIKE wraps the term in `%…%` (a substring match). */
function identityMatcher(term: string, match: string | undefined): (name: string) => boolean {
  const wanted = term.toLowerCase();
  if (match !== undefined && !['ILIKE', 'LIKE', 'single', 'any', 'FTS'].includes(match)) {
    return (name) => name.toLowerCase() === wanted;
  }
  const pattern = `%${wanted}%`
    .split('')
    .map((char) => (char === '%' ? '.*' : char === '_' ? '.' : char.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  const regex = new RegExp(`^${pattern}$`, 'i');
  return (name) => regex.test(name);
}

/** PostgreSQL `timestamp` text: no zone, fraction only when non-zero, trailing zeros cut. */
function zoneless(date: Date, withFraction = false): string {
  const iso = date.toISOString().slice(0, -1);
  if (!withFraction) return iso.slice(0, 19);
  return iso.replace(/\.?0+$/, '');
}

/** Writes the page for a failure mode; false for the modes that answer with data. */
function answerFailure(mode: CrtshMode, res: ServerResponse): boolean {
  switch (mode) {
    case 'html_error':
      sendHtml(res, 200, htmlPage('crt.sh | ERROR!', '<p>ERROR: invalid input syntax for type bigint</p>'));
      return true;
    case 'db_error':
      sendHtml(
        res,
        503,
        htmlPage(
          'crt.sh | ERROR!',
          '<p>Your request was terminated by the crt.sh database server after 30 seconds. Searches that would produce many results may never succeed.</p>',
        ),
      );
      return true;
    case 'gateway_error':
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end('ERROR');
      return true;
    case 'bad_gateway':
      sendNginx(res, 502, 'Bad Gateway');
      return true;
    case 'gateway_timeout':
      sendNginx(res, 504, 'Gateway Time-out');
      return true;
    default:
      return false;
  }
}

function htmlPage(title: string, body: string): string {
  return `<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01//EN" "http://www.w3.org/TR/html4/strict.dtd">
<HTML>
<HEAD>
  <META http-equiv="Content-Type" content="text/html; charset=UTF-8">
  <TITLE>${title}</TITLE>
</HEAD>
<BODY>
  <DIV class="error">${body}</DIV>
</BODY>
</HTML>
`;
}

function sendHtml(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=UTF-8' });
  res.end(body);
}

function sendNginx(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { server: 'nginx', 'content-type': 'text/html' });
  res.end(
    `<html>\r\n<head><title>${status} ${text}</title></head>\r\n<body>\r\n<center><h1>${status} ${text}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`,
  );
}
