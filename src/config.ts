/**
 * Environment → typed, validated configuration. Parsed once at start; a bad value
 * becomes a `ConfigError` whose message is one line naming the variable and what it expects.
 */
import { DEFAULT_PRICE_PER_30_DAYS_USD } from './catalog.ts';
import { isIP } from 'node:net';
import { z } from 'zod';
import { ACME_CAS, type AcmeCa, type AcmeDirectory } from './sources/ari/acme-cas.ts';
import { withoutCredentials } from './sources/public-fetch/public-fetch.ts';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const httpUrl = z
  .string()
  .trim()
  .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), 'an http(s) URL');

const redisUrl = z
  .string()
  .trim()
  .refine(
    (value) =>
      URL.canParse(value) && /^rediss?:$/.test(new URL(value).protocol) && new URL(value).hostname !== '',
    'a redis:// or rediss:// URL with a host',
  );

const address = z
  .string()
  .trim()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'a 0x-prefixed 20-byte hex address')
  .transform((value) => value as `0x${string}`);

const privateKey = z
  .string()
  .trim()
  .regex(/^0x[0-9a-fA-F]{64}$/, 'a 0x-prefixed 32-byte hex private key')
  .transform((value) => value as `0x${string}`);

const PORT_EXPECTED = 'a port number from 1 to 65535';
const port = z.coerce
  .number({ error: PORT_EXPECTED })
  .int(PORT_EXPECTED)
  .min(1, PORT_EXPECTED)
  .max(65535, PORT_EXPECTED);

const bool = z
  .enum(['true', 'false', '1', '0'], { error: 'true or false' })
  .transform((value) => value === 'true' || value === '1');

const count = (expected: string, min: number) =>
  z.coerce.number({ error: expected }).int(expected).min(min, expected).max(1_000_000, expected);

/** A comma-separated list: entries trimmed, empty ones dropped. */
const commaList = z
  .string()
  .trim()
  .transform((list) =>
    list
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean),
  );

const ipList = commaList.refine(
  (addresses) => addresses.every((entry) => isIP(entry) !== 0),
  'a comma-separated list of IP addresses',
);

const ACME_DIRECTORIES_EXPECTED = `comma-separated ca=directory URL pairs with ca one of ${ACME_CAS.join(', ')}, each at most once, or an empty value (ARI off)`;

/** `ACME_DIRECTORIES`: `ca=URL` pairs; every CA named once and every URL http(s). */
const acmeDirectories = commaList
  .transform((entries) =>
    entries.map((entry) => {
      const equals = entry.indexOf('=');
      return [entry.slice(0, equals).trim(), entry.slice(equals + 1).trim()] as const;
    }),
  )
  .refine(
    (pairs) =>
      new Set(pairs.map(([ca]) => ca)).size === pairs.length &&
      pairs.every(
        ([ca, url]) =>
          (ACME_CAS as readonly string[]).includes(ca) &&
          URL.canParse(url) &&
          /^https?:$/.test(new URL(url).protocol),
      ),
    ACME_DIRECTORIES_EXPECTED,
  )
  .transform((pairs) =>
    // A user name and password in the URL are dropped: neither sent (fetch refuses them) nor shown in `sources`.
    pairs.map(([ca, url]): AcmeDirectory => ({
      ca: ca as AcmeCa,
      directoryUrl: withoutCredentials(new URL(url)),
    })),
  );

/** The production ACME directories (the default of `ACME_DIRECTORIES`, docs/configuration.md). */
export const DEFAULT_ACME_DIRECTORIES =
  'letsencrypt=https://acme-v02.api.letsencrypt.org/directory,google=https://dv.acme-v02.api.pki.goog/directory';

const envSchema = z.object({
  PORT: port.default(8080),
  HOST: z.string().trim().min(1).default('0.0.0.0'),
  PUBLIC_BASE_URL: httpUrl.optional(),
  CRTSH_URL: httpUrl.default('https://crt.sh'),
  CERTSPOTTER_URL: httpUrl.default('https://api.certspotter.com'),
  CERTSPOTTER_API_KEY: z.string().trim().min(1).optional(),
  DOH_URL: httpUrl.default('https://cloudflare-dns.com/dns-query'),
  DOH_FALLBACK_URL: httpUrl.default('https://dns.google/dns-query'),
  RDAP_BOOTSTRAP_URL: httpUrl.default('https://data.iana.org/rdap/dns.json'),
  PROBE_PORT: port.default(443),
  PROBE_ALLOW_PRIVATE: bool.default(false),
  X402_NETWORK: z
    .string()
    .trim()
    .regex(/^eip155:[0-9]+$/, 'a CAIP-2 EVM network such as eip155:8453')
    .default('eip155:8453'),
  X402_ASSET: address.default('0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'),
  X402_PAY_TO: address.optional(),
  X402_FACILITATOR_URL: httpUrl.optional(),
  // "Name: value", sent on verify/settle/supported to a facilitator that wants a static credential.
  X402_FACILITATOR_AUTH_HEADER: z
    .string()
    .trim()
    .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+:\s*\S/, 'a header line "Name: value"')
    .transform((line) => {
      const colon = line.indexOf(':');
      return { name: line.slice(0, colon), value: line.slice(colon + 1).trim() };
    })
    .optional(),
  X402_RPC_URL: httpUrl.optional(),
  X402_SETTLER_PRIVATE_KEY: privateKey.optional(),
  METRICS_TOKEN: z.string().trim().min(16, 'a bearer token of at least 16 characters').optional(),
  RATE_LIMIT_BURST: count('a whole number of requests from 0 (no limit) to 1000000', 0).default(60),
  RATE_LIMIT_PER_MINUTE: count('a whole number of requests per minute from 1 to 1000000', 1).default(60),
  TRUSTED_PROXIES: ipList.default([]),
  // Self mode: how often to look for a settlement's receipt; a few looks per block of the chain.
  X402_RECEIPT_POLL_MS: z.coerce
    .number({ error: 'milliseconds from 10 to 10000' })
    .int('milliseconds from 10 to 10000')
    .min(10, 'milliseconds from 10 to 10000')
    .max(10_000, 'milliseconds from 10 to 10000')
    .default(250),
  ACME_DIRECTORIES: acmeDirectories.optional(),
  REDIS_URL: redisUrl.optional(),
  WATCH_INTERVAL_S: count('a whole number of seconds from 1 to 1000000', 1).default(21_600),
  WATCH_DAY_S: count('a whole number of seconds from 1 to 1000000', 1).default(86_400),
  WATCH_CONFIRM_S: count('a whole number of seconds from 1 to 1000000', 1).default(5),
  WATCH_PRICE_PER_30_DAYS_USD: z
    .string()
    .trim()
    .regex(/^(0|[1-9][0-9]{0,5})(\.[0-9]{1,6})?$/, 'a decimal USD amount with at most 6 decimals, e.g. 0.10')
    .refine((value) => Number(value) > 0, 'a USD amount above zero')
    .default(DEFAULT_PRICE_PER_30_DAYS_USD),
  WATCH_DB_PATH: z.string().trim().min(1).default('data/watches.db'),
  WATCH_SECRET_KEY: z.string().trim().min(32, 'a secret of at least 32 characters').optional(),
  LOG_LEVEL: z.enum(LOG_LEVELS, { error: `one of ${LOG_LEVELS.join(', ')}` }).default('info'),
  NODE_ENV: z.string().optional(),
});

/** How payments are verified and settled (docs/configuration.md: the payment mode follows from the variables). */
export type PaymentMode =
  | {
      kind: 'remote';
      facilitatorUrl: URL;
      authHeader?: { name: string; value: string };
      /** Optional read access to the chain, to resolve a settlement the facilitator left uncertain. */
      rpcUrl?: URL;
    }
  | { kind: 'self'; rpcUrl: URL; settlerPrivateKey: `0x${string}`; receiptPollMs: number }
  | { kind: 'local-chain' };

export interface Config {
  port: number;
  host: string;
  /** Absolute base for discovery documents and x402 `resource.url`, without a trailing slash. */
  publicBaseUrl: string;
  upstreams: {
    crtshUrl: URL;
    certspotterUrl: URL;
    certspotterApiKey: string | undefined;
    dohUrl: URL;
    dohFallbackUrl: URL;
    rdapBootstrapUrl: URL;
    /** ACME directories whose Renewal Information (RFC 9773) is read; empty: ARI off. */
    acmeDirectories: AcmeDirectory[];
  };
  probe: { port: number; allowPrivate: boolean };
  x402: {
    network: `${string}:${string}`;
    asset: `0x${string}`;
    /** Undefined only in `local-chain` mode, where the embedded chain supplies a recipient. */
    payTo: `0x${string}` | undefined;
    mode: PaymentMode;
  };
  ops: {
    /** Bearer token `/metrics` requires; open when undefined. */
    metricsToken: string | undefined;
    /** Per-client token bucket on free work: `burst` requests at once (0: no limit), refilled at `perMinute`. */
    rateLimit: { burst: number; perMinute: number };
    /** Peers whose `X-Forwarded-For` is believed (the load balancer's addresses). */
    trustedProxies: string[];
  };
  /** The Redis-protocol server the instances share state through; undefined: one instance, state in memory. */
  redisUrl: URL | undefined;
  watches: {
    /** `WATCH_INTERVAL_S`: seconds between a watch's checks. */
    intervalS: number;
    /** `WATCH_DAY_S`: the length of a watch's day (its `days` and the webhook retry schedule). */
    dayS: number;
    /** `WATCH_CONFIRM_S`: seconds between a failure's first and second look before it is raised. */
    confirmS: number;
    /** `WATCH_PRICE_PER_30_DAYS_USD`, decimal USD. */
    pricePer30DaysUsd: string;
    /** `WATCH_DB_PATH`: the embedded store of one Node instance without `REDIS_URL`. */
    dbPath: string;
    /** `WATCH_SECRET_KEY`; undefined outside production: the Node entry point keeps one beside `dbPath`. */
    secretKey: string | undefined;
  };
  logLevel: (typeof LOG_LEVELS)[number];
  production: boolean;
}

/** A configuration problem, with a one-line message naming the variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** How payments are taken: through a remote facilitator, settled here, or on the embedded local chain. */
function paymentModeOf(e: z.infer<typeof envSchema>, production: boolean): PaymentMode {
  if (e.X402_FACILITATOR_URL) {
    const mode: PaymentMode = { kind: 'remote', facilitatorUrl: new URL(e.X402_FACILITATOR_URL) };
    if (e.X402_FACILITATOR_AUTH_HEADER) mode.authHeader = e.X402_FACILITATOR_AUTH_HEADER;
    if (e.X402_RPC_URL) mode.rpcUrl = new URL(e.X402_RPC_URL);
    return mode;
  }
  if (e.X402_RPC_URL || e.X402_SETTLER_PRIVATE_KEY) {
    if (!e.X402_RPC_URL || !e.X402_SETTLER_PRIVATE_KEY) {
      const missing = e.X402_RPC_URL ? 'X402_SETTLER_PRIVATE_KEY' : 'X402_RPC_URL';
      throw new ConfigError(
        `Invalid configuration: ${missing} is required: self-settlement needs both X402_RPC_URL and X402_SETTLER_PRIVATE_KEY.`,
      );
    }
    return {
      kind: 'self',
      rpcUrl: new URL(e.X402_RPC_URL),
      settlerPrivateKey: e.X402_SETTLER_PRIVATE_KEY,
      receiptPollMs: e.X402_RECEIPT_POLL_MS,
    };
  }
  if (production) {
    throw new ConfigError(
      'Invalid configuration: X402_FACILITATOR_URL or X402_RPC_URL+X402_SETTLER_PRIVATE_KEY is required when NODE_ENV=production (the embedded local chain is for development only).',
    );
  }
  return { kind: 'local-chain' };
}

/** Parses and validates the environment. Throws `ConfigError` on the first bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // An empty variable counts as unset, as shells and .env files often leave them; an empty
  // ACME_DIRECTORIES is a choice (ARI off).
  const present = Object.fromEntries(
    Object.entries(env).filter(
      ([name, value]) => value !== undefined && (value !== '' || name === 'ACME_DIRECTORIES'),
    ),
  );
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const variable = String(issue?.path[0] ?? 'environment');
    throw new ConfigError(
      // The value is not echoed: several variables hold secrets (keys, auth headers).
      `Invalid configuration: ${variable} is not valid: expected ${issue?.message ?? 'a valid value'}.`,
    );
  }
  const e = parsed.data;
  const production = e.NODE_ENV === 'production';

  const mode = paymentModeOf(e, production);
  if (production && !e.WATCH_SECRET_KEY) {
    throw new ConfigError(
      'Invalid configuration: WATCH_SECRET_KEY is required when NODE_ENV=production: expected a secret of at least 32 characters (watch tokens and webhook secrets derive from it).',
    );
  }
  if (mode.kind !== 'local-chain' && !e.X402_PAY_TO) {
    throw new ConfigError(
      'Invalid configuration: X402_PAY_TO is required: expected the 0x address that receives payments.',
    );
  }

  return {
    port: e.PORT,
    host: e.HOST,
    publicBaseUrl: (e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    upstreams: {
      crtshUrl: new URL(e.CRTSH_URL),
      certspotterUrl: new URL(e.CERTSPOTTER_URL),
      certspotterApiKey: e.CERTSPOTTER_API_KEY,
      dohUrl: new URL(e.DOH_URL),
      dohFallbackUrl: new URL(e.DOH_FALLBACK_URL),
      rdapBootstrapUrl: new URL(e.RDAP_BOOTSTRAP_URL),
      acmeDirectories: e.ACME_DIRECTORIES ?? acmeDirectories.parse(DEFAULT_ACME_DIRECTORIES),
    },
    probe: { port: e.PROBE_PORT, allowPrivate: e.PROBE_ALLOW_PRIVATE },
    x402: {
      network: e.X402_NETWORK as `${string}:${string}`,
      asset: e.X402_ASSET,
      payTo: e.X402_PAY_TO,
      mode,
    },
    ops: {
      metricsToken: e.METRICS_TOKEN,
      rateLimit: { burst: e.RATE_LIMIT_BURST, perMinute: e.RATE_LIMIT_PER_MINUTE },
      trustedProxies: e.TRUSTED_PROXIES,
    },
    redisUrl: e.REDIS_URL ? new URL(e.REDIS_URL) : undefined,
    watches: {
      intervalS: e.WATCH_INTERVAL_S,
      dayS: e.WATCH_DAY_S,
      confirmS: e.WATCH_CONFIRM_S,
      pricePer30DaysUsd: e.WATCH_PRICE_PER_30_DAYS_USD,
      dbPath: e.WATCH_DB_PATH,
      secretKey: e.WATCH_SECRET_KEY,
    },
    logLevel: e.LOG_LEVEL,
    production,
  };
}
