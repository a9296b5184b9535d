/**
 * What `npm start` (and `npm run edge:dev`) tell a person: one line for a bad variable, the embedded
 * chain's banner with a demo command that works as printed, and one line instead of a stack trace
 * when the port cannot be taken.
 */
import { EXAMPLE_DOMAIN } from './catalog.ts';
import { type Config, ConfigError, loadConfig } from './config.ts';
import type { LocalChain } from './payments/chain/local-chain.ts';

/** The configuration from the environment, or the one line naming the bad variable and exit 1. */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}

/**
 * A domain of the closed test world (`npm run world`) whose every check answers: a healthy shop
 * with a renewed certificate, signed DNS and a locked registration. A test keeps it in the world.
 */
export const WORLD_DEMO_DOMAIN = 'healthy-shop.com';

/** How the README and the banner run the client package's CLI inside this repository. */
export const REPO_CLI = 'npm run -s cli --';

function isLoopback(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Whether every upstream is on this machine: the closed test world rather than the internet. */
export function upstreamsAreLocal(config: Config): boolean {
  const { certspotterApiKey: _key, acmeDirectories, ...urls } = config.upstreams;
  return [...Object.values(urls), ...acmeDirectories.map((acme) => acme.directoryUrl)].every(isLoopback);
}

/** The domain the demo command checks: one the world knows when the upstreams are the world. */
export function demoDomain(config: Config): string {
  return upstreamsAreLocal(config) ? WORLD_DEMO_DOMAIN : EXAMPLE_DOMAIN;
}

/** The banner printed once the service listens on the embedded chain. */
export function localChainBanner(config: Config, local: LocalChain): string {
  const lines = [
    '',
    'Embedded local chain (development only): anvil as Base (eip155:8453) with a test USDC at the USDC address.',
    `  RPC:        ${local.rpcUrl.href}`,
    `  pay to:     ${local.payTo}`,
    `  demo payer: ${local.demoPayer.address} (holds test USDC)`,
    '',
    'Pay for a check with the demo payer:',
    `  X402_PRIVATE_KEY=${local.demoPayer.privateKey} ${REPO_CLI} cert ${demoDomain(config)} --url ${config.publicBaseUrl}`,
  ];
  if (!upstreamsAreLocal(config))
    lines.push(
      '',
      'The checks call the real upstreams (crt.sh, DNS over HTTPS, RDAP). Offline? Run `npm run world`',
      'and start the service with the variables it prints.',
    );
  return `${lines.join('\n')}\n\n`;
}

/**
 * One line for a listen error a person can fix (port taken, no permission), else undefined.
 * `command` is how the reader started the service (`npm start`, `npm run edge:dev`); Miniflare's
 * `ERR_ADDRESS_IN_USE` is the edge runtime's port taken.
 */
export function listenFailure(error: unknown, config: Config, command = 'npm start'): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  const where = `${config.host}:${config.port}`;
  if (code === 'EADDRINUSE' || code === 'ERR_ADDRESS_IN_USE')
    return `Port ${config.port} is already in use (${where}): stop the process using it, or start with another PORT, e.g. PORT=8081 ${command}.`;
  if (code === 'EACCES')
    return `No permission to listen on ${where}: use a port above 1023, e.g. PORT=8080 ${command}.`;
  if (code === 'EADDRNOTAVAIL')
    return `HOST ${config.host} is not an address of this machine: set HOST to one that is.`;
  return undefined;
}
