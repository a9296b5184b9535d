/**
 * The wallet as the account over HTTP (contract §6.1): `GET /v1/watches` lists the signed-in
 * wallet's watches; `POST /v1/watches/{id}/rotate-secret` and `/rotate-token` (free, Bearer or
 * wallet) issue a new webhook secret or token. `guard` answers the management routes' refusals:
 * 404 for a watch these credentials do not manage, 401 `invalid_sign_in` for a proof that does not
 * hold, and the x402 auth-only 402 (`accepts: []`, the `sign-in-with-x` challenge) without either.
 */
import { encodePaymentRequiredHeader } from '@x402/core/http';
import { type Context, Hono } from 'hono';
import { WATCHES_ROUTE } from '../../catalog.ts';
import type { RequestLogVariables } from '../hygiene/request-log.ts';
import { replyJson } from '../hygiene/standard-headers.ts';
import { sendProblem } from '../send-problem.ts';
import {
  authOnlyChallenge,
  type Credentials,
  type Denied,
  deniedProblem,
  INVALID_CURSOR,
  type WatchAccessControl,
  type SpendProof,
} from '../../watches/access.ts';
import type { WatchRecord } from '../../watches/model.ts';
import type { Watches } from '../../watches/ports.ts';
import { rotateCall } from '../../watches/rotate-call.ts';
import { type ProofUse, SIGN_IN_WITH_X } from '../../watches/sign-in.ts';
import { walletListView } from '../../watches/views.ts';
import { walletWatches } from '../../watches/wallet-watches.ts';

type AccountEnv = { Variables: RequestLogVariables };

const PRIVATE = { 'cache-control': 'private, no-store' };

export const SIGN_IN_CODES = { required: 'sign_in_required', invalid: 'invalid_sign_in' } as const;

export function credentialsOf(c: Context): Credentials {
  const token = /^Bearer +(\S+)\s*$/i.exec(c.req.header('authorization') ?? '')?.[1] ?? null;
  return { token, proof: c.req.header(SIGN_IN_WITH_X) ?? null };
}

export async function sendDenied(c: Context, denied: Denied, access: WatchAccessControl): Promise<Response> {
  if (denied.kind !== 'sign_in_required') return sendProblem(c, deniedProblem(denied));
  const challenge = await authOnlyChallenge(access, c.req.url);
  return sendProblem(
    c,
    {
      status: 402,
      code: SIGN_IN_CODES.required,
      title: 'Sign-in required',
      detail: challenge.error ?? '',
      // The challenge whole, as a paid 402's body carries it, for clients that read the body.
      x402Version: challenge.x402Version,
      error: challenge.error,
      resource: challenge.resource,
      accepts: [],
      extensions: challenge.extensions,
    },
    { 'cache-control': 'no-store', 'payment-required': encodePaymentRequiredHeader(challenge) },
  );
}

/**
 * The watch of the route's `:watch_id` that the request's credentials manage, or the refusal sent.
 * `proofUse` is what the call does with a sign-in's nonce (`Credentials`).
 */
export async function guard(
  c: Context,
  access: WatchAccessControl,
  proofUse: ProofUse = 'spend',
): Promise<{ watch: WatchRecord; spendProof?: SpendProof } | { response: Response }> {
  const granted = await access.watch(c.req.param('watch_id') ?? '', { ...credentialsOf(c), proofUse });
  if (granted.kind === 'granted') return granted;
  return { response: await sendDenied(c, granted, access) };
}

export function accountRoutes(watches: Watches, access: WatchAccessControl): Hono<AccountEnv> {
  const { service, ledger } = watches;
  const app = new Hono<AccountEnv>();

  app.get(WATCHES_ROUTE, async function walletList(c) {
    const signedIn = await access.wallet(credentialsOf(c).proof);
    if (signedIn.kind !== 'wallet' || !ledger)
      return sendDenied(c, signedIn.kind === 'wallet' ? { kind: 'not_found' } : signedIn, access);
    const page = await walletWatches(service, ledger, signedIn.payer, c.req.query('cursor'));
    if (!page.ok) return sendProblem(c, INVALID_CURSOR);
    return replyJson(c, walletListView(page.watches, page.nextCursor), 200, PRIVATE);
  });

  for (const what of ['token', 'secret'] as const) {
    app.post(`${WATCHES_ROUTE}/:watch_id/rotate-${what}`, async function rotate(c) {
      const guarded = await guard(c, access);
      if ('response' in guarded) return guarded.response;
      const answer = await rotateCall(watches, guarded.watch, what);
      return answer.ok ? replyJson(c, answer.body, 200, PRIVATE) : sendProblem(c, answer.problem);
    });
  }

  return app;
}
