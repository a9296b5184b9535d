/**
 * The service's app, where its two transports meet: the HTTP routes (`http/app.ts`) with the MCP
 * endpoint (`mcp/endpoint.ts`) served at `/mcp`, loaded with the MCP SDK on the first POST. Neither
 * transport imports the other; the platforms (`service.ts`) and the tests build the app here.
 */
import type { Hono } from 'hono';
import { type AppEnv, createHttpApp, type HttpAppDeps } from './http/app.ts';
import { DEFAULT_BODY_LIMIT_BYTES } from './http/hygiene/index.ts';

export type { AppEnv };

export type AppDeps = Omit<HttpAppDeps, 'mcp'>;

export function createApp(deps: AppDeps): Hono<AppEnv> {
  const { config, logger, watches } = deps;
  return createHttpApp({
    ...deps,
    async mcp({ runners, payments }) {
      const { mcpEndpoint } = await import('./mcp/endpoint.ts');
      return mcpEndpoint({
        payments,
        config,
        runners,
        logger,
        maxBodyBytes: DEFAULT_BODY_LIMIT_BYTES,
        ...(watches ? { watches } : {}),
      });
    },
  });
}
