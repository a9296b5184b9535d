/**
 * The whole closed world: every upstream fake on loopback, answering from the scenario files, plus
 * the environment that points the service at it. Used by integration tests and `npm run world`.
 */
import { type AcmeCaFake, startAcmeCa } from './acme.ts';
import { type CertspotterFake, startCertspotter } from './certspotter.ts';
import { type CrtshFake, startCrtsh } from './crtsh.ts';
import { type CtCertificates, ctCertificates } from './ct-certificates.ts';
import { type FakeDoh, startDoh } from './doh.ts';
import { type HttpsSite, startHttpsSite } from './https-site.ts';
import { type RdapBootstrapFake, startRdapBootstrap } from './rdap-bootstrap.ts';
import { type RdapRegistryFake, startRdapRegistry } from './rdap-registry.ts';
import type { Scenario } from './scenario.ts';
import { loadScenarios } from './scenarios/index.ts';
import { createTestCa } from './test-ca.ts';

export interface World {
  scenarios: Map<string, Scenario>;
  crtsh: CrtshFake;
  certspotter: CertspotterFake;
  doh: FakeDoh;
  dohFallback: FakeDoh;
  rdapBootstrap: RdapBootstrapFake;
  rdapRegistry: RdapRegistryFake;
  site: HttpsSite;
  /** The real bytes of every CT certificate (shared by the CT fakes and the ACME CAs). */
  certificates: CtCertificates;
  /** Let's Encrypt and Google Trust Services with ACME Renewal Information. */
  acme: { letsencrypt: AcmeCaFake; google: AcmeCaFake };
  /** The service's environment variables pointing at this world (as docs/configuration.md names them). */
  env: Record<string, string>;
  /** Sets every fake back to normal answers (tests switch failure modes per case). */
  reset(): void;
  close(): Promise<void>;
}

export async function startWorld(options: { now?: () => Date } = {}): Promise<World> {
  const scenarios = await loadScenarios();
  const clock = options.now ? { now: options.now } : {};
  // One CA for the world: CT's certificates, what the sites serve and what the ACME CAs know agree.
  const ca = await createTestCa();
  const certificates = ctCertificates(ca);
  const [crtsh, certspotter, doh, dohFallback, rdapRegistry, site] = await Promise.all([
    startCrtsh(scenarios, { ...clock, certificates }),
    startCertspotter(scenarios, { ...clock, certificates }),
    startDoh(scenarios),
    startDoh(scenarios),
    startRdapRegistry(scenarios, clock),
    startHttpsSite(scenarios, { ...clock, ca, certificates }),
  ]);
  const [rdapBootstrap, letsencrypt, google] = await Promise.all([
    startRdapBootstrap(rdapRegistry.url),
    startAcmeCa('letsencrypt', scenarios, { ...clock, certificates }),
    startAcmeCa('google', scenarios, { ...clock, certificates }),
  ]);
  const fakes = [
    crtsh,
    certspotter,
    doh,
    dohFallback,
    rdapRegistry,
    rdapRegistry.registrar,
    rdapBootstrap,
    site,
    letsencrypt,
    google,
  ];

  return {
    scenarios,
    crtsh,
    certspotter,
    doh,
    dohFallback,
    rdapBootstrap,
    rdapRegistry,
    site,
    certificates,
    acme: { letsencrypt, google },
    env: {
      CRTSH_URL: crtsh.url.href,
      CERTSPOTTER_URL: certspotter.url.href,
      DOH_URL: doh.endpoint.href,
      DOH_FALLBACK_URL: dohFallback.endpoint.href,
      RDAP_BOOTSTRAP_URL: rdapBootstrap.fileUrl.href,
      PROBE_PORT: String(site.port),
      PROBE_ALLOW_PRIVATE: 'true',
      ACME_DIRECTORIES: `letsencrypt=${letsencrypt.directoryUrl.href},google=${google.directoryUrl.href}`,
    },
    reset() {
      crtsh.mode = null;
      crtsh.delayMs = 0;
      crtsh.hold = null;
      certspotter.mode = null;
      certspotter.delayMs = 0;
      doh.mode = null;
      dohFallback.mode = null;
      doh.delayMs = 0;
      dohFallback.delayMs = 0;
      rdapBootstrap.mode = null;
      rdapRegistry.mode = null;
      rdapRegistry.registrarMode = null;
      rdapRegistry.referralHref = null;
      rdapRegistry.redirectTo = null;
      site.mode = null;
      for (const acme of [letsencrypt, google]) {
        acme.mode = null;
        acme.failureRetryAfter = '120';
        acme.renewalInfoOverride = null;
      }
    },
    close: async () => {
      await Promise.all(fakes.map((fake) => fake.close()));
    },
  };
}
