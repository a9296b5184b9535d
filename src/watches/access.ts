/**
 * Who may manage a watch, whatever the transport: the holder of its Bearer token, or the wallet
 * that paid for it, proven by a `SIGN-IN-WITH-X` message (`sign-in.ts`). A watch another wallet
 * bought is the same `not_found` as an unknown id; a proof that does not hold is `refused` before
 * any other work; no proof at all is `sign_in_required` (the x402 auth-only 402) where this
 * runtime keeps a wallet ledger.
 */
import type { PaymentRequired } from '@x402/core/types';
import type { Config } from '../config.ts';
import { PROBLEM_CODES, type Problem } from '../vocabulary/problems.ts';
import type { WatchRecord } from './model.ts';
import type { Watches } from './ports.ts';
import type { InvalidReason } from '../domain/invalid-reasons.ts';
import {
  createSignIn,
  type ProofUse,
  SIGN_IN_WITH_X,
  type SignIn,
  type SignInChain,
  SPENT_NONCE,
} from './sign-in.ts';

/** What a management call carries: either may be absent. */
export interface Credentials {
  token: string | null;
  /** The `SIGN-IN-WITH-X` header's value (base64 of the JSON payload). */
  proof: string | null;
  /**
   * What the call does with a proof's nonce (`ProofUse`, default `spend`). On the paid extension
   * the paid work spends it once the payment is verified (`spendProof`), so that the unpaid request,
   * answered with the payment's challenge, or a payment refused or not taken leaves the sign-in good
   * for the retry, and the same paid call sent again is let in again.
   */
  proofUse?: ProofUse;
}

export type Denied =
  { kind: 'not_found' } | { kind: 'sign_in_required' } | { kind: 'refused'; reason: string };

/** A sign-in left unspent (`proofUse` other than `spend`): spends it for a payment, false when that cannot be. */
export type SpendProof = (paymentKey: string) => Promise<boolean>;

export type WalletAccess = { kind: 'wallet'; payer: `0x${string}`; spendProof?: SpendProof } | Denied;
export type WatchAccess = { kind: 'granted'; watch: WatchRecord; spendProof?: SpendProof } | Denied;

/** Why paid work refuses a sign-in whose nonce went to another call: the refusal of a spent proof. */
export const SPENT_PROOF: InvalidReason = {
  code: 'invalid_sign_in',
  message: SPENT_NONCE,
  refusal: { status: 401, title: 'Invalid sign-in' },
};

/** Longest id and token looked up; anything longer cannot be one (404 without a look). */
export const MAX_ID_LENGTH = 64;
export const MAX_TOKEN_LENGTH = 128;

export interface WatchAccessControl {
  /** The challenge side, absent where no wallet can sign in (no ledger). */
  signIn?: SignIn;
  /** The wallet a proof signs in (without a proof: `sign_in_required`). */
  wallet(proof: string | null): Promise<WalletAccess>;
  /** The watch `id` if these credentials manage it. */
  watch(id: string, credentials: Credentials): Promise<WatchAccess>;
}

export function createWatchAccess(
  config: Config,
  { service, ledger }: Watches,
  chain?: SignInChain,
): WatchAccessControl {
  const key = config.watches.secretKey;
  const signIn =
    ledger && key
      ? createSignIn({
          origin: config.publicBaseUrl,
          network: config.x402.network,
          key,
          ledger,
          ...(chain ? { chain } : {}),
        })
      : undefined;

  async function wallet(proof: string | null, use: ProofUse = 'spend'): Promise<WalletAccess> {
    if (!signIn) return { kind: 'not_found' };
    if (proof === null) return { kind: 'sign_in_required' };
    const verified = await signIn.verify(proof, use);
    if (!verified.ok) return { kind: 'refused', reason: verified.reason };
    const { payer, spendFor } = verified;
    return spendFor ? { kind: 'wallet', payer, spendProof: spendFor } : { kind: 'wallet', payer };
  }

  return {
    ...(signIn ? { signIn } : {}),
    wallet,
    async watch(id, { token, proof, proofUse }) {
      if (token !== null) {
        if (id.length > MAX_ID_LENGTH || token.length > MAX_TOKEN_LENGTH) return { kind: 'not_found' };
        const watch = await service.authorized(id, token);
        return watch ? { kind: 'granted', watch } : { kind: 'not_found' };
      }
      const signedIn = await wallet(proof, proofUse);
      if (signedIn.kind !== 'wallet') return signedIn;
      if (id.length > MAX_ID_LENGTH) return { kind: 'not_found' };
      const watch = await service.watch(id);
      if (!watch || watch.payer !== signedIn.payer) return { kind: 'not_found' };
      const { spendProof } = signedIn;
      return spendProof ? { kind: 'granted', watch, spendProof } : { kind: 'granted', watch };
    },
  };
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

/** The problem of a refusal other than `sign_in_required` (which answers with a challenge). */
export function deniedProblem(denied: Exclude<Denied, { kind: 'sign_in_required' }>): Problem {
  if (denied.kind === 'not_found') {
    return {
      status: 404,
      code: PROBLEM_CODES.notFound,
      title: 'Not found',
      detail: 'No watch with this id is managed by this token or wallet.',
    };
  }
  return {
    status: 401,
    code: 'invalid_sign_in',
    title: 'Invalid sign-in',
    detail: denied.reason,
    reason: denied.reason,
  };
}

export const INVALID_CURSOR: Problem = {
  status: 400,
  code: 'invalid_cursor',
  title: 'Invalid request',
  detail: '`cursor` must be the next_cursor of an earlier page.',
};
