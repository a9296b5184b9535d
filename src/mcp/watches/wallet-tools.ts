/**
 * The wallet as the account over MCP (contract §6.1): a management tool takes the watch's `token`
 * or the paying wallet's sign-in in `_meta["x402/sign-in-with-x"]` (the `SIGN-IN-WITH-X` header's
 * base64 value, or the signed payload as an object). Without either the result is the x402
 * auth-only challenge (isError, structuredContent a PaymentRequired with `accepts: []` and the
 * `sign-in-with-x` extension). `watch_list`, `watch_rotate_secret` and `watch_rotate_token` are the
 * tools of `GET /v1/watches` and the two rotations.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import { encodeSIWxHeader, type SIWxPayload } from '@x402/extensions/sign-in-with-x';
import { z } from 'zod';
import type { Config } from '../../config.ts';
import { DOCUMENT_PATHS } from '../../vocabulary/document-paths.ts';
import { paymentRequiredResult, problemResult, successResult } from '../tool-result.ts';
import {
  authOnlyChallenge,
  type Denied,
  deniedProblem,
  INVALID_CURSOR,
  type WatchAccessControl,
  type SpendProof,
} from '../../watches/access.ts';
import type { ProofUse } from '../../watches/sign-in.ts';
import type { WatchRecord } from '../../watches/model.ts';
import type { Watches } from '../../watches/ports.ts';
import { rotateCall } from '../../watches/rotate-call.ts';
import { watchRotatedSchema, walletListSchema } from '../../watches/schemas.ts';
import { toolConfig, type WatchTool } from './tool-config.ts';
import { walletListView } from '../../watches/views.ts';
import { walletWatches } from '../../watches/wallet-watches.ts';

export const SIGN_IN_META_KEY = 'x402/sign-in-with-x';

export const manageShape = {
  watch_id: z.string().max(64).describe('The watch_id from watch_domain or watch_list.'),
  token: z
    .string()
    .max(128)
    .optional()
    .describe(
      `The token from watch_domain; or sign in as the paying wallet in _meta["${SIGN_IN_META_KEY}"].`,
    ),
};

/** The proof in a tool call's `_meta`, as the header's value; null when absent. */
function proofOf(meta: Record<string, unknown> | undefined): string | null {
  const proof = meta?.[SIGN_IN_META_KEY];
  if (proof === undefined || proof === null) return null;
  if (typeof proof === 'string') return proof;
  try {
    return encodeSIWxHeader(proof as SIWxPayload);
  } catch {
    return '';
  }
}

async function deniedResult(
  denied: Denied,
  access: WatchAccessControl,
  config: Config,
): Promise<CallToolResult> {
  if (denied.kind !== 'sign_in_required') return problemResult(deniedProblem(denied));
  return paymentRequiredResult(
    await authOnlyChallenge(access, `${config.publicBaseUrl}${DOCUMENT_PATHS.mcp}`),
  );
}

export type Managed = (
  args: Record<string, unknown>,
  meta: Record<string, unknown> | undefined,
  /** What the call does with a sign-in's nonce (`Credentials`). */
  proofUse?: ProofUse,
) => Promise<{ watch: WatchRecord; spendProof?: SpendProof } | { denied: CallToolResult }>;

/** The watch a tool call's token or sign-in manages, or the result that refuses it. */
export function managedBy(config: Config, access: WatchAccessControl): Managed {
  return async (args, meta, proofUse) => {
    const token = typeof args.token === 'string' ? args.token : null;
    const proof = proofOf(meta);
    const granted = await access.watch(String(args.watch_id ?? ''), { token, proof, proofUse });
    if (granted.kind === 'granted') return granted;
    return { denied: await deniedResult(granted, access, config) };
  };
}

const listConfig = toolConfig(
  'v1_watch_list',
  { cursor: z.string().max(80).optional().describe('The next_cursor of the previous page.') },
  walletListSchema,
);
const rotateSecretConfig = toolConfig('v1_watch_rotate_secret', manageShape, watchRotatedSchema);
const rotateTokenConfig = toolConfig('v1_watch_rotate_token', manageShape, watchRotatedSchema);

export function walletTools(
  config: Config,
  watches: Watches,
  access: WatchAccessControl,
  managed: Managed,
): WatchTool[] {
  const { service, ledger } = watches;
  return [
    {
      ...listConfig,
      async call(args, meta) {
        const signedIn = await access.wallet(proofOf(meta));
        if (signedIn.kind !== 'wallet' || !ledger) {
          return deniedResult(signedIn.kind === 'wallet' ? { kind: 'not_found' } : signedIn, access, config);
        }
        const cursor = typeof args.cursor === 'string' ? args.cursor : undefined;
        const page = await walletWatches(service, ledger, signedIn.payer, cursor);
        if (!page.ok) return problemResult(INVALID_CURSOR);
        return successResult(walletListView(page.watches, page.nextCursor));
      },
    },
    ...(
      [
        [rotateSecretConfig, 'secret'],
        [rotateTokenConfig, 'token'],
      ] as const
    ).map(([toolConfig, what]) => ({
      ...toolConfig,
      async call(args: Record<string, unknown>, meta: Record<string, unknown> | undefined) {
        const granted = await managed(args, meta);
        if ('denied' in granted) return granted.denied;
        const answer = await rotateCall(watches, granted.watch, what);
        return answer.ok ? successResult(answer.body) : problemResult(answer.problem);
      },
    })),
  ];
}
