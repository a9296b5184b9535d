/** What `npm start` prints for a person: the demo command's domain and one-line listen failures. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import {
  demoDomain,
  listenFailure,
  upstreamsAreLocal,
  WORLD_DEMO_DOMAIN,
} from '../../src/startup-messages.ts';
import { loadScenarios } from '../world/scenarios/index.ts';

const WORLD_ENV = {
  CRTSH_URL: 'http://127.0.0.1:4001',
  CERTSPOTTER_URL: 'http://127.0.0.1:4002',
  DOH_URL: 'http://127.0.0.1:4003/dns-query',
  DOH_FALLBACK_URL: 'http://[::1]:4004/dns-query',
  RDAP_BOOTSTRAP_URL: 'http://localhost:4005/dns.json',
  ACME_DIRECTORIES: 'letsencrypt=http://127.0.0.1:4006/directory,google=http://127.0.0.1:4007/directory',
};

describe('the demo domain', () => {
  it('is a world domain whose checks all answer, when every upstream is on loopback', async () => {
    const config = loadConfig(WORLD_ENV);
    expect(upstreamsAreLocal(config)).toBe(true);
    expect(demoDomain(config)).toBe(WORLD_DEMO_DOMAIN);
    const scenario = (await loadScenarios()).get(WORLD_DEMO_DOMAIN);
    expect(scenario?.https).toMatchObject({ mode: 'ok' });
    expect(scenario?.ct?.certificates.length).toBeGreaterThan(0);
  });

  it('is example.com with the real upstreams, or when only some are local', () => {
    expect(demoDomain(loadConfig({}))).toBe('example.com');
    expect(demoDomain(loadConfig({ ...WORLD_ENV, CRTSH_URL: 'https://crt.sh' }))).toBe('example.com');
    // The default ACME directories are the CAs' own.
    const { ACME_DIRECTORIES: _acme, ...withoutAcme } = WORLD_ENV;
    expect(demoDomain(loadConfig(withoutAcme))).toBe('example.com');
  });
});

describe('listenFailure', () => {
  const config = loadConfig({ PORT: '8080' });
  const error = (code: string) => Object.assign(new Error(`listen ${code}`), { code });

  it('says in one line that the port is taken and how to pick another', () => {
    expect(listenFailure(error('EADDRINUSE'), config)).toBe(
      'Port 8080 is already in use (0.0.0.0:8080): stop the process using it, or start with another PORT, e.g. PORT=8081 npm start.',
    );
  });

  it('says the same for the edge runtime, with the command that started it', () => {
    expect(listenFailure(error('ERR_ADDRESS_IN_USE'), config, 'npm run edge:dev')).toBe(
      'Port 8080 is already in use (0.0.0.0:8080): stop the process using it, or start with another PORT, e.g. PORT=8081 npm run edge:dev.',
    );
  });

  it('explains a privileged port and a foreign HOST, and leaves other errors alone', () => {
    expect(listenFailure(error('EACCES'), config)).toMatch(/^No permission to listen on 0\.0\.0\.0:8080/);
    expect(listenFailure(error('EADDRNOTAVAIL'), config)).toMatch(/^HOST 0\.0\.0\.0 is not an address/);
    expect(listenFailure(error('EMFILE'), config)).toBeUndefined();
    expect(listenFailure(null, config)).toBeUndefined();
  });
});
