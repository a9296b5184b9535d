/**
 * The app as the discovery tests see it: public base https://checks.example.com, a silent logger,
 * and check runners that throw, so any document that reached a runner would fail its test.
 */
import type { Logger } from 'pino';
import { pino } from 'pino';
import type { CheckRunners } from '../../../../src/catalog.ts';
import { loadConfig } from '../../../../src/config.ts';
import { createApp } from '../../../../src/app.ts';
import { NO_OP_GATE } from '../../../../src/http/payment-gate.ts';

export const PUBLIC_BASE_URL = 'https://checks.example.com';

/** Runners whose every method throws: discovery must never call them. */
export function throwingRunners(): CheckRunners {
  const refuse = (name: string) => () => {
    throw new Error(`runner ${name} called by a discovery route`);
  };
  return {
    cert: refuse('cert'),
    dns: refuse('dns'),
    expiry: refuse('expiry'),
    siteHealth: refuse('siteHealth'),
    admit: refuse('admit'),
  };
}

/** `createApp` for `PUBLIC_BASE_URL` with throwing runners and a silent logger unless one is given. */
export function createDiscoveryApp(logger: Logger = pino({ level: 'silent' })) {
  return createApp({
    payments: NO_OP_GATE,
    config: loadConfig({ PUBLIC_BASE_URL }),
    logger,
    runners: throwingRunners(),
  });
}

/** True when `value` is `PUBLIC_BASE_URL` itself or an absolute URL under it. */
export function isPublicUrl(value: string): boolean {
  return URL.canParse(value) && (value === PUBLIC_BASE_URL || value.startsWith(`${PUBLIC_BASE_URL}/`));
}

/** A parsed JSON document walked by assertions; a wrong path fails the assertion, not the compiler. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read deep, schema-checked JSON by key.
export type Json = Record<string, any>;
