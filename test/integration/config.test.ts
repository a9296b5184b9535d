import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

const KEY = `0x${'ab'.repeat(32)}`;
const ADDRESS = `0x${'12'.repeat(20)}`;

describe('loadConfig', () => {
  it('gives the production defaults and the local chain with no variables', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      publicBaseUrl: 'http://localhost:8080',
      probe: { port: 443, allowPrivate: false },
      x402: {
        network: 'eip155:8453',
        asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
        mode: { kind: 'local-chain' },
      },
      logLevel: 'info',
      production: false,
    });
    expect(config.upstreams.crtshUrl.href).toBe('https://crt.sh/');
    expect(config.upstreams.dohUrl.href).toBe('https://cloudflare-dns.com/dns-query');
    expect(config.upstreams.rdapBootstrapUrl.href).toBe('https://data.iana.org/rdap/dns.json');
  });

  it('derives the payment mode from the variables', () => {
    expect(
      loadConfig({ X402_FACILITATOR_URL: 'https://f.example.com', X402_PAY_TO: ADDRESS }).x402.mode.kind,
    ).toBe('remote');
    const self = loadConfig({
      X402_RPC_URL: 'http://127.0.0.1:8545',
      X402_SETTLER_PRIVATE_KEY: KEY,
      X402_PAY_TO: ADDRESS,
    });
    expect(self.x402.mode).toMatchObject({ kind: 'self', settlerPrivateKey: KEY });
  });

  it('strips a trailing slash from PUBLIC_BASE_URL and treats empty variables as unset', () => {
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://checks.example.com/', PORT: '' }).publicBaseUrl).toBe(
      'https://checks.example.com',
    );
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ CRTSH_URL: 'ftp://crt.sh' }, 'CRTSH_URL'],
    [{ DOH_URL: 'not a url' }, 'DOH_URL'],
    [{ PROBE_ALLOW_PRIVATE: 'yes' }, 'PROBE_ALLOW_PRIVATE'],
    [{ X402_NETWORK: 'base' }, 'X402_NETWORK'],
    [{ X402_PAY_TO: '0x1234' }, 'X402_PAY_TO'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ X402_FACILITATOR_URL: 'https://f.example.com' }, 'X402_PAY_TO'],
    [{ X402_RPC_URL: 'http://127.0.0.1:8545', X402_PAY_TO: ADDRESS }, 'X402_SETTLER_PRIVATE_KEY'],
    [{ NODE_ENV: 'production' }, 'X402_FACILITATOR_URL'],
    [{ REDIS_URL: 'http://127.0.0.1:6379' }, 'REDIS_URL'],
    [{ REDIS_URL: 'redis://' }, 'REDIS_URL'],
    [{ REDIS_URL: '127.0.0.1:6379' }, 'REDIS_URL'],
  ])('refuses %o with one line naming %s', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    try {
      loadConfig(env);
    } catch (error) {
      const message = (error as Error).message;
      expect(message).toContain(variable);
      expect(message).not.toContain('\n');
      expect(message).not.toMatch(/Invalid input|received/);
    }
  });

  it('drops a user name and password from an ACME_DIRECTORIES URL', () => {
    const { acmeDirectories } = loadConfig({
      ACME_DIRECTORIES: 'letsencrypt=https://user:s3cret@acme.example/directory',
    }).upstreams;
    expect(acmeDirectories.map((entry) => entry.directoryUrl.href)).toEqual([
      'https://acme.example/directory',
    ]);
  });

  it('reads ACME_DIRECTORIES: the two CAs by default, pairs as given, empty turns ARI off', () => {
    expect(
      loadConfig({}).upstreams.acmeDirectories.map(({ ca, directoryUrl }) => [ca, directoryUrl.href]),
    ).toEqual([
      ['letsencrypt', 'https://acme-v02.api.letsencrypt.org/directory'],
      ['google', 'https://dv.acme-v02.api.pki.goog/directory'],
    ]);
    const one = loadConfig({ ACME_DIRECTORIES: ' letsencrypt = http://127.0.0.1:4010/directory , ' });
    expect(one.upstreams.acmeDirectories.map((entry) => entry.directoryUrl.href)).toEqual([
      'http://127.0.0.1:4010/directory',
    ]);
    expect(loadConfig({ ACME_DIRECTORIES: '' }).upstreams.acmeDirectories).toEqual([]);
    for (const bad of [
      'sectigo=https://acme.sectigo.com/v2/DV',
      'letsencrypt',
      'letsencrypt=ftp://acme.example/directory',
      'letsencrypt=not a url',
      'letsencrypt=https://a.example/directory,letsencrypt=https://b.example/directory',
    ]) {
      expect(() => loadConfig({ ACME_DIRECTORIES: bad })).toThrow(
        /^Invalid configuration: ACME_DIRECTORIES is not valid: expected comma-separated ca=directory URL pairs with ca one of letsencrypt, google/,
      );
    }
  });

  it('takes REDIS_URL as a redis:// or rediss:// URL, unset by default', () => {
    expect(loadConfig({}).redisUrl).toBeUndefined();
    expect(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379/2' }).redisUrl?.href).toBe(
      'redis://127.0.0.1:6379/2',
    );
    expect(loadConfig({ REDIS_URL: 'rediss://:pw@cache.internal:6380' }).redisUrl?.protocol).toBe('rediss:');
  });

  it('never echoes a secret value in the error', () => {
    const secret = `0x${'cd'.repeat(31)}`; // one byte short: invalid
    expect(() =>
      loadConfig({
        X402_RPC_URL: 'http://127.0.0.1:8545',
        X402_SETTLER_PRIVATE_KEY: secret,
        X402_PAY_TO: ADDRESS,
      }),
    ).toThrow(/^Invalid configuration: X402_SETTLER_PRIVATE_KEY is not valid/);
    try {
      loadConfig({ X402_SETTLER_PRIVATE_KEY: secret, X402_RPC_URL: 'http://127.0.0.1:8545' });
    } catch (error) {
      expect((error as Error).message).not.toContain('cdcd');
    }
  });
});

describe('starting the service with a bad value', () => {
  it('prints one clear line on stderr and exits non-zero before listening', () => {
    const run = spawnSync(process.execPath, ['src/main.ts'], {
      env: { PATH: process.env.PATH, PORT: 'eighty' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toEqual([
      'Invalid configuration: PORT is not valid: expected a port number from 1 to 65535.',
    ]);
  });
});
