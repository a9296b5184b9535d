/**
 * The form of a challenge the `PAYMENT-REQUIRED` header carries: all that x402 v2 requires
 * (`x402Version`, `error`, `resource`, `accepts`) and every declared extension, except the bazaar's
 * output example, its output schema and its schema's descriptions, which only catalogues read and
 * which the 402's body and the discovery documents carry whole. A client echoes the header's
 * extensions in `PAYMENT-SIGNATURE`, so both stay within what a reverse proxy passes by default:
 * nginx reads an answer's headers into one 4 KiB page (`proxy_buffer_size`) and takes request header
 * lines of at most 8 KiB (`large_client_header_buffers`). The site-health challenge whole was 12 KB.
 */
import type { PaymentRequired } from '@x402/core/types';

/** What the header keeps of the output schema: that there is an output, an object (x402 bazaar spec). */
const OUTPUT_SHAPE = {
  type: 'object',
  properties: { type: { type: 'string' }, example: { type: 'object' } },
  required: ['type'],
} as const;

/**
 * `schema` without its prose and nested `$schema` members: the types a client is held to. Under
 * `properties` the keys are property names, kept whatever they are.
 */
function skeleton(schema: unknown, nested = false, names = false): unknown {
  if (Array.isArray(schema)) return schema.map((item) => skeleton(item, true));
  if (typeof schema !== 'object' || schema === null) return schema;
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (!names && (key === 'description' || (nested && key === '$schema'))) continue;
    kept[key] = skeleton(value, true, !names && key === 'properties');
  }
  return kept;
}

interface Bazaar {
  info?: { input?: unknown };
  schema?: { properties?: Record<string, unknown> };
}

const headerForms = new WeakMap<Record<string, unknown>, Record<string, unknown>>();

/**
 * `extensions` as the header carries them, and so as a client echoes them: what a payment's echo is
 * held to (kept per declaration, which the terms build once).
 */
export function headerExtensions(extensions: Record<string, unknown>): Record<string, unknown> {
  let form = headerForms.get(extensions);
  if (!form) {
    form = withBazaarInput(extensions);
    headerForms.set(extensions, form);
  }
  return form;
}

export function headerChallenge(challenge: PaymentRequired): PaymentRequired {
  return challenge.extensions
    ? { ...challenge, extensions: headerExtensions(challenge.extensions) }
    : challenge;
}

function withBazaarInput(extensions: Record<string, unknown>): Record<string, unknown> {
  const bazaar = extensions.bazaar as Bazaar | undefined;
  if (!bazaar?.info || !bazaar.schema?.properties) return extensions;
  const { output, ...properties } = bazaar.schema.properties;
  return {
    ...extensions,
    bazaar: {
      info: { input: bazaar.info.input },
      schema: skeleton({
        ...bazaar.schema,
        properties: output === undefined ? properties : { ...properties, output: OUTPUT_SHAPE },
      }),
    },
  };
}
