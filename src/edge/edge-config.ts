import { type Config, ConfigError, loadConfig } from '../config.ts';

/** The Worker's variables and secrets (`EdgeEnv` in edge-env.ts adds its Durable Object bindings). */
export type EdgeVariables = Readonly<Record<string, unknown>>;

/**
 * The configuration from the Worker's variables. `PUBLIC_BASE_URL` defaults to `origin`, where the
 * Worker was reached (there is no port to derive it from). There is no embedded chain at the edge:
 * a facilitator or self-settlement must be configured.
 */
export function edgeConfig(env: EdgeVariables, origin?: string): Config {
  const variables = Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
  const config = loadConfig({ PUBLIC_BASE_URL: origin, ...variables });
  if (config.x402.mode.kind === 'local-chain') {
    throw new ConfigError(
      'Invalid configuration: X402_FACILITATOR_URL or X402_RPC_URL+X402_SETTLER_PRIVATE_KEY is required on Workers (the embedded local chain runs only under Node; `npm run edge:dev` starts one for you).',
    );
  }
  return config;
}
