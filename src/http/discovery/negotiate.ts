/** Content negotiation for the discovery routes: HTML or JSON at `/`, and the response's content coding. */

export type ContentCoding = 'br' | 'gzip' | 'identity';

interface Range {
  name: string;
  q: number;
}

// `text/html;q=0.9, */*;q=0.1` → [{ text/html, 0.9 }, { */*, 0.1 }]; names lower-cased.
function parseList(header: string): Range[] {
  return header.split(',').map((part) => {
    const [name = '', ...params] = part.split(';').map((piece) => piece.trim().toLowerCase());
    const q = params.find((param) => param.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    return { name, q: Number.isFinite(weight) ? weight : 0 };
  });
}

/** The weight `ranges` give `type`: its most specific matching range (RFC 9110 §12.5.1). */
function weightOf(ranges: Range[], type: string): number {
  const [major] = type.split('/');
  for (const name of [type, `${major}/*`, '*/*']) {
    const range = ranges.find((candidate) => candidate.name === name);
    if (range) return range.q;
  }
  return 0;
}

/**
 * Whether a request for `/` wants the page for people: true only when the Accept header weighs
 * `text/html` above `application/json`. A browser does; an agent sending JSON, `*∕*` or nothing
 * keeps the JSON index.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept?.includes('text/')) return false;
  const ranges = parseList(accept);
  return weightOf(ranges, 'text/html') > weightOf(ranges, 'application/json');
}

/** The best coding the client accepts, preferring br over gzip (RFC 9110 §12.5.3). */
export function preferredEncoding(acceptEncoding: string | undefined): ContentCoding {
  if (!acceptEncoding) return 'identity';
  const ranges = parseList(acceptEncoding);
  const weight = (coding: string) =>
    ranges.find((range) => range.name === coding)?.q ?? ranges.find((range) => range.name === '*')?.q ?? 0;
  if (weight('br') > 0) return 'br';
  if (weight('gzip') > 0) return 'gzip';
  return 'identity';
}
