/**
 * The wallet as the account over HTTP (contract §6.1): `GET /v1/watches` lists the signed-in
 * wallet's watches; `POST /v1/watches/{id}/rotate-secret` and `/rotate-token` (free, Bearer or
 * wallet) issue a new webhook secret or token. `guard` answers the management routes' refusals:
 * 404 for a watch these credentials do not manage, 401 `invalid_sign_in` for a proof that does not
 * hold, and the x402 auth-only 402 (`accepts: []`, the `sign-in-with-x` challenge) without either.
 */
import { encodePaymentRequiredHeader } from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import { type Context, Hono } from 'hono';
import { WATCHES_ROUTE } from '../catalog.ts';
import type { RequestLogVariables } from '../http/hygiene/request-log.ts';
import { replyJson } from '../http/hygiene/standard-headers.ts';
import { PROBLEM_CODES, sendProblem } from '../http/problems.ts';
import type { Credentials, Denied, WatchAccessControl } from './access.ts';
import type { WatchRecord } from './model.ts';
import type { Watches } from './ports.ts';
import { secretGenerationOf, tokenGenerationOf } from './rotations.ts';
import { SIGN_IN_WITH_X } from './sign-in.ts';
import { walletListView } from './views.ts';
import { walletWatches } from './wallet-watches.ts';

type AccountEnv = { Variables: RequestLogVariables };

const PRIVATE = { 'cache-control': 'private, no-store' };

export const SIGN_IN_CODES = { required: 'sign_in_required', invalid: 'invalid_sign_in' } as const;

const NOT_FOUND = {
  status: 404 as const,
  code: PROBLEM_CODES.notFound,
  title: 'Not found',
  detail: 'No watch with this id is managed by this token or wallet.',
};

export function credentialsOf(c: Context): Credentials {
  const token = /^Bearer +(\S+)\s*$/i.exec(c.req.header('authorization') ?? '')?.[1] ?? null;
  return { token, proof: c.req.header(SIGN_IN_WITH_X) ?? null };
}

/** The auth-only x402 challenge of `url`: no payment, a fresh sign-in message to sign. */
export async function authOnlyChallenge(access: WatchAccessControl, url: string): Promise<PaymentRequired> {
  if (!access.signIn) throw new Error('no wallet can sign in on this runtime');
  return {
    x402Version: 2,
    error: 'Sign in with the wallet that paid (sign-in-with-x), or send the watch token as a Bearer token.',
    resource: { url, description: 'Managing the watches a wallet bought', mimeType: 'application/json' },
    accepts: [],
    extensions: { [SIGN_IN_WITH_X]: await access.signIn.challenge(url) },
  };
}

export async function sendDenied(c: Context, denied: Denied, access: WatchAccessControl): Promise<Response> {
  if (denied.kind === 'not_found') return sendProblem(c, NOT_FOUND);
  if (denied.kind === 'refused') {
    return sendProblem(c, {
      status: 401,
      code: SIGN_IN_CODES.invalid,
      title: 'Invalid sign-in',
      detail: denied.reason,
      reason: denied.reason,
    });
  }
  const challenge = await authOnlyChallenge(access, c.req.url);
  return sendProblem(
    c,
    {
      status: 402,
      code: SIGN_IN_CODES.required,
      title: 'Sign-in required',
      detail: challenge.error ?? '',
      accepts: [],
      extensions: challenge.extensions,
    },
    { 'cache-control': 'no-store', 'payment-required': encodePaymentRequiredHeader(challenge) },
  );
}

/** The watch of the route's `:watch_id` that the request's credentials manage, or the refusal sent. */
export async function guard(
  c: Context,
  access: WatchAccessControl,
): Promise<{ watch: WatchRecord } | { response: Response }> {
  const granted = await access.watch(c.req.param('watch_id') ?? '', credentialsOf(c));
  if (granted.kind === 'granted') return { watch: granted.watch };
  return { response: await sendDenied(c, granted, access) };
}

export function accountRoutes(
  { service, secrets, ledger }: Watches,
  access: WatchAccessControl,
): Hono<AccountEnv> {
  const app = new Hono<AccountEnv>();

  app.get(WATCHES_ROUTE, async function walletList(c) {
    const signedIn = await access.wallet(credentialsOf(c).proof);
    if (signedIn.kind !== 'wallet' || !ledger)
      return sendDenied(c, signedIn.kind === 'wallet' ? { kind: 'not_found' } : signedIn, access);
    const page = await walletWatches(service, ledger, signedIn.payer, c.req.query('cursor'));
    if (!page.ok) {
      return sendProblem(c, {
        status: 400,
        code: 'invalid_cursor',
        title: 'Invalid request',
        detail: '`cursor` must be the next_cursor of an earlier page.',
      });
    }
    return replyJson(c, walletListView(page.watches, page.nextCursor), 200, PRIVATE);
  });

  app.post(`${WATCHES_ROUTE}/:watch_id/rotate-token`, async function rotateToken(c) {
    const guarded = await guard(c, access);
    if ('response' in guarded) return guarded.response;
    const rotated = await service.rotate(guarded.watch.id, 'token');
    const watch = rotated ?? guarded.watch;
    return replyJson(
      c,
      { watch_id: watch.id, token: await secrets.token(watch.id, tokenGenerationOf(watch)) },
      200,
      PRIVATE,
    );
  });

  app.post(`${WATCHES_ROUTE}/:watch_id/rotate-secret`, async function rotateSecret(c) {
    const guarded = await guard(c, access);
    if ('response' in guarded) return guarded.response;
    if (guarded.watch.webhookUrl === null) {
      return sendProblem(c, {
        status: 409,
        code: 'no_webhook',
        title: 'No webhook',
        detail: 'This watch is pull-only: it has no webhook secret to rotate.',
      });
    }
    const watch = (await service.rotate(guarded.watch.id, 'secret')) ?? guarded.watch;
    const secret = await secrets.webhookSecret(watch.id, secretGenerationOf(watch));
    return replyJson(c, { watch_id: watch.id, webhook_secret: secret }, 200, PRIVATE);
  });

  return app;
}
