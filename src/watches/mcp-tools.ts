/**
 * The watch tools of the MCP server, declared from the catalog's watch operations: `watch_domain`
 * (paid over `_meta["x402/payment"]` like the checks), `watch_status` and `watch_cancel` (free,
 * with the watch's `token` as an argument). Each entry is its schemas and a small handler.
 */
import type { CallToolResult, StandardSchemaWithJSON, ToolAnnotations } from '@modelcontextprotocol/server';
import type { Logger } from 'pino';
import { z } from 'zod';
import { type WatchOperation, watchOperations } from '../catalog.ts';
import type { Config } from '../config.ts';
import { PROBLEM_CODES } from '../vocabulary/problems.ts';
import { PAYMENT_META_KEY, paidOutcomeResult, readToolPayment } from '../mcp/paid-tool.ts';
import { problemResult, refusedResult, successResult } from '../mcp/tool-result.ts';
import { paidOutputSchema, withCachedJsonSchema } from '../mcp/tool-schemas.ts';
import { PAYMENT_UNAVAILABLE } from '../payments/server/payment-problem.ts';
import type { Payments } from '../payments/payments.ts';
import { eventSeqOf } from './model.ts';
import { authorizationOfPayload } from './payment-signature.ts';
import { watchTermsFor } from './payment-terms.ts';
import { watchPurchase } from './purchase.ts';
import { checkWatchRequest, watchSubject } from './request.ts';
import type { Watches } from './ports.ts';
import { watchCreatedSchema, watchInputShape, watchStatusSchema } from './schemas.ts';
import { statusView } from './views.ts';

type WatchArgs = Record<string, unknown>;

export interface WatchTool {
  name: string;
  config: {
    title: string;
    description: string;
    inputSchema: StandardSchemaWithJSON<WatchArgs>;
    outputSchema: StandardSchemaWithJSON;
    annotations: ToolAnnotations;
  };
  call(
    args: Record<string, unknown>,
    meta: Record<string, unknown> | undefined,
    signal: AbortSignal,
  ): Promise<CallToolResult>;
}

const manageShape = {
  watch_id: z.string().max(64).describe('The watch_id from watch_domain.'),
  token: z.string().max(128).describe('The token from watch_domain.'),
};

const NOT_FOUND = problemResult({
  status: 404,
  code: PROBLEM_CODES.notFound,
  title: 'Not found',
  detail: 'No watch with this id is managed by this token.',
});

const operation = (id: WatchOperation['id']) => watchOperations.find((o) => o.id === id) as WatchOperation;

/** Name, description and schemas of one watch tool: the same for every request, so built once. */
function toolConfig(id: WatchOperation['id'], inputShape: z.ZodRawShape, result: z.ZodObject) {
  const { tool, title, description, method } = operation(id);
  return {
    name: tool,
    config: {
      title,
      description,
      inputSchema: withCachedJsonSchema(z.object(inputShape) as z.ZodType<WatchArgs>),
      outputSchema: withCachedJsonSchema(paidOutputSchema(result)),
      annotations: {
        title,
        readOnlyHint: method === 'GET',
        destructiveHint: method === 'DELETE',
        idempotentHint: method !== 'POST',
        openWorldHint: true,
      },
    },
  };
}

const createConfig = toolConfig('v1_watch_create', watchInputShape, watchCreatedSchema);
const statusConfig = toolConfig(
  'v1_watch_status',
  {
    ...manageShape,
    since: z.string().max(64).optional().describe('An event id: list only the events after it.'),
  },
  watchStatusSchema,
);
const cancelConfig = toolConfig('v1_watch_cancel', manageShape, watchStatusSchema);

export function watchTools(deps: {
  config: Config;
  watches: Watches;
  payments: Payments;
  logger: Logger;
}): WatchTool[] {
  const { config, watches, payments, logger } = deps;
  const { service } = watches;
  const terms = watchTermsFor(payments.resourceServer, config, 'mcp');

  async function managed(args: Record<string, unknown>) {
    return service.authorized(String(args.watch_id ?? ''), String(args.token ?? ''));
  }

  return [
    {
      ...createConfig,
      async call(args, meta, signal) {
        const checked = checkWatchRequest(args, config.probe.allowPrivate);
        if (!checked.ok) return refusedResult({ type: 'invalid_input', reason: checked.reason });
        if (!(await payments.facilitatorReady())) return problemResult(PAYMENT_UNAVAILABLE);
        const purchase = watchPurchase(
          watches,
          checked.request,
          () => authorizationOfPayload(meta?.[PAYMENT_META_KEY]),
          logger,
        );
        const outcome = await payments.paidCall({
          terms: await terms(checked.request.days),
          payment: readToolPayment(meta),
          run: () => purchase.run(),
          signal,
          name: 'watch_domain',
          subject: watchSubject(checked.request),
        });
        await purchase.finish(outcome.kind === 'delivered');
        return paidOutcomeResult(outcome);
      },
    },
    {
      ...statusConfig,
      async call(args) {
        const watch = await managed(args);
        if (!watch) return NOT_FOUND;
        const since = typeof args.since === 'string' ? eventSeqOf(watch.id, args.since) : 0;
        if (since === null) {
          return refusedResult({
            type: 'invalid_input',
            reason: {
              code: 'invalid_since',
              message: "`since` must be the id of one of this watch's events.",
            },
          });
        }
        const { events, attempts } = await service.history(watch.id, since);
        return successResult(statusView(watch, events, attempts));
      },
    },
    {
      ...cancelConfig,
      async call(args) {
        const watch = await managed(args);
        if (!watch) return NOT_FOUND;
        const after = (await service.cancel(watch.id)) ?? watch;
        const { events, attempts } = await service.history(watch.id, 0);
        return successResult(statusView(after, events, attempts));
      },
    },
  ];
}
