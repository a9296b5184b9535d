/**
 * Serves a fixed document: its content-coded variants (br, gzip) compressed once on first demand and
 * kept, a strong ETag per variant answered with 304, and the document's `Cache-Control`.
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Context } from 'hono';
import { reply } from '../hygiene/standard-headers.ts';
import { preferredEncoding, type ContentCoding } from './negotiate.ts';

/** Bodies smaller than this are sent as they are: compression would save less than its overhead. */
const MIN_COMPRESS_BYTES = 1024;

const compressors: Record<Exclude<ContentCoding, 'identity'>, (body: Buffer) => Promise<Buffer>> = {
  // Quality 9: close to the maximum ratio at a fraction of quality 11's time on the 1.7 MB bundle.
  br: (body) =>
    promisify(brotliCompress)(body, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
    }),
  gzip: (body) => promisify(gzip)(body, { level: 9 }),
};

export interface DocumentOptions {
  /** The body, or a loader called once on the first request (large files read on demand). */
  body: string | (() => Promise<string | Buffer>);
  contentType: string;
  cacheControl: string;
  /** Sent with every answer, 304 included (e.g. the server card's CORS headers); a `vary` is extended. */
  headers?: Record<string, string>;
}

interface Variant {
  body: Buffer;
  etag: string;
}

const etagOf = (body: Buffer) => `"${createHash('sha1').update(body).digest('hex')}"`;

/** A Hono handler answering GET (and HEAD) for one fixed document. */
export function documentHandler(options: DocumentOptions): (c: Context) => Promise<Response> {
  const variants = new Map<ContentCoding, Promise<Variant>>();
  const variant = (coding: ContentCoding): Promise<Variant> => {
    let pending = variants.get(coding);
    if (!pending) {
      pending =
        coding === 'identity'
          ? loadBody(options.body).then((body) => ({ body, etag: etagOf(body) }))
          : variant('identity').then(async ({ body }) => {
              const compressed = await compressors[coding](body);
              return { body: compressed, etag: etagOf(compressed) };
            });
      variants.set(coding, pending);
    }
    return pending;
  };

  return async function serveDocument(c) {
    const identity = await variant('identity');
    const compressible = identity.body.length >= MIN_COMPRESS_BYTES;
    const coding = compressible ? preferredEncoding(c.req.header('accept-encoding')) : 'identity';
    const chosen = coding === 'identity' ? identity : await variant(coding);
    const headers: Record<string, string> = {
      ...options.headers,
      'cache-control': options.cacheControl,
      etag: chosen.etag,
    };
    if (compressible) headers.vary = headers.vary ? `${headers.vary}, Accept-Encoding` : 'Accept-Encoding';
    if (matches(c.req.header('if-none-match'), chosen.etag)) return reply(c, null, 304, headers);
    headers['content-type'] = options.contentType;
    if (coding !== 'identity') headers['content-encoding'] = coding;
    return reply(c, new Uint8Array(chosen.body), 200, headers);
  };
}

async function loadBody(body: DocumentOptions['body']): Promise<Buffer> {
  const loaded = typeof body === 'string' ? body : await body();
  return typeof loaded === 'string' ? Buffer.from(loaded, 'utf8') : loaded;
}

/** RFC 9110 §13.1.2: `*` or any listed entity tag (weak comparison) matches. */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
