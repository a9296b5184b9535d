import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config.ts';
import { edgeConfig } from '../../../src/edge/edge-config.ts';
import type { EdgeEnv } from '../../../src/edge/edge-env.ts';

const PAY_TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
/** Bindings are objects beside the string variables; only the strings are configuration. */
const bindings = {
  AUTHORIZATIONS: {},
  SETTLERS: {},
  RATE_BUCKETS: {},
  WATCHES: {},
  DOMAIN_CHECKS: {},
} as unknown as Pick<EdgeEnv, 'AUTHORIZATIONS' | 'SETTLERS' | 'RATE_BUCKETS' | 'WATCHES' | 'DOMAIN_CHECKS'>;

describe('edgeConfig', () => {
  it('reads the same variables as npm start, ignoring the Durable Object bindings', () => {
    const config = edgeConfig(
      {
        ...bindings,
        X402_FACILITATOR_URL: 'https://facilitator.example/',
        X402_PAY_TO: PAY_TO,
        LOG_LEVEL: 'warn',
      },
      'https://checks.example.net',
    );
    expect(config.x402.mode).toMatchObject({ kind: 'remote' });
    expect(config.logLevel).toBe('warn');
  });

  it('takes the public base URL from where the Worker was reached, unless PUBLIC_BASE_URL is set', () => {
    const env = { ...bindings, X402_FACILITATOR_URL: 'https://facilitator.example/', X402_PAY_TO: PAY_TO };
    expect(edgeConfig(env, 'https://checks.example.net').publicBaseUrl).toBe('https://checks.example.net');
    expect(
      edgeConfig({ ...env, PUBLIC_BASE_URL: 'https://api.example.org/' }, 'https://x.workers.dev')
        .publicBaseUrl,
    ).toBe('https://api.example.org');
  });

  it('refuses the embedded local chain, which only runs under Node, naming what to set', () => {
    expect(() => edgeConfig({ ...bindings }, 'https://checks.example.net')).toThrow(ConfigError);
    expect(() => edgeConfig({ ...bindings }, 'https://checks.example.net')).toThrow(/X402_FACILITATOR_URL/);
  });

  it('stops at a bad variable with the one line npm start prints, without echoing its value', () => {
    const secret = 'not-a-key-but-secret';
    const env = {
      ...bindings,
      X402_RPC_URL: 'https://rpc.example/',
      X402_SETTLER_PRIVATE_KEY: secret,
      X402_PAY_TO: PAY_TO,
    };
    let message = '';
    try {
      edgeConfig(env);
    } catch (error) {
      message = String(error);
    }
    expect(message).toMatch(/X402_SETTLER_PRIVATE_KEY is not valid/);
    expect(message).not.toContain(secret);
  });
});
