/**
 * Sign-In-With-X for the wallet that paid (x402 `sign-in-with-x`, CAIP-122, SIWE for EVM): the
 * challenge an auth-only 402 carries, and the check of a `SIGN-IN-WITH-X` proof. The message is
 * parsed, its domain and uri checked against the public origin and its signature verified by
 * `@x402/extensions` (the signature through the chain's `verifyMessage` when this runtime reads the
 * chain, so EIP-1271 contract wallets verify too). What the library leaves to the application is
 * here: the chain must be the payment network's; the nonce must be one this service issued (an
 * HMAC under `WATCH_SECRET_KEY` with its own expiry, so any instance can tell without a store) and
 * accepted only once, or by a paid call for its payment alone (`WalletLedger.acceptNonce`, shared by
 * every instance); the expiry holds against the chain's latest block as well as this server's clock.
 */
import {
  buildSIWxSchema,
  parseSIWxHeader,
  SIGN_IN_WITH_X,
  type SIWxExtension,
  validateSIWxMessage,
  verifySIWxSignature,
} from '@x402/extensions/sign-in-with-x';
import type { WalletLedger } from './wallet-ledger.ts';

/** How long a challenge may be signed and used. */
export const CHALLENGE_TTL_S = 300;
/** Longest `SIGN-IN-WITH-X` header read: a SIWE payload is well under 2 KB. */
export const MAX_PROOF_LENGTH = 8_192;

export { SIGN_IN_WITH_X };

/** What the chain is asked, where this runtime reads it. */
export interface SignInChain {
  /** The timestamp of the latest block, in seconds. */
  latestBlockTime(): Promise<bigint>;
  /** EIP-191 for an account, EIP-1271 (`isValidSignature`) for a contract wallet. */
  verifyMessage(args: {
    address: `0x${string}`;
    message: string;
    signature: `0x${string}`;
  }): Promise<boolean>;
}

export interface SignInDeps {
  /** The service's public origin (`PUBLIC_BASE_URL`): the message's `domain` and `uri`. */
  origin: string;
  /** The payment network (CAIP-2, e.g. `eip155:8453`): the message's `chainId`. */
  network: string;
  /** `WATCH_SECRET_KEY`: nonces are MACed under it. */
  key: string;
  ledger: Pick<WalletLedger, 'acceptNonce' | 'nonceHolder'>;
  chain?: SignInChain;
  now?: () => number;
}

/**
 * What a call does with a proof's nonce: `spend` it now (a free management call); leave it for the
 * payment the call carries to spend once verified (`pay`, refused when a free call spent it); or
 * leave it, refused when spent at all (`ask`: the unpaid request of a paid route, which can only
 * lead to a new payment).
 */
export type ProofUse = 'spend' | 'pay' | 'ask';

export type SignInResult =
  | {
      ok: true;
      payer: `0x${string}`;
      /**
       * Present when the nonce was left unspent: spends it for the payment `boundTo` (its
       * authorization's key); false when it was spent already, unless for that same payment.
       */
      spendFor?: (boundTo: string) => Promise<boolean>;
    }
  | { ok: false; reason: string };

export interface SignIn {
  /** The `sign-in-with-x` extension of an auth-only 402 for `resourceUrl`: a fresh challenge. */
  challenge(resourceUrl: string): Promise<SIWxExtension>;
  /**
   * Checks a `SIGN-IN-WITH-X` header; the payer's lower-case address, or why it is refused. Its
   * nonce is spent now unless `use` says otherwise (`ProofUse`): a paid call spends it once its
   * payment is verified, for that payment (`spendFor`), and the unpaid request before it leaves it
   * for the paid retry, which a standard client sends with the same proof.
   */
  verify(header: string, use?: ProofUse): Promise<SignInResult>;
}

/** Why a proof whose nonce was accepted before is refused. */
export const SPENT_NONCE = 'The nonce was already used: ask for a new challenge.';

const encoder = new TextEncoder();
const hex = (bytes: ArrayBuffer | Uint8Array) => Buffer.from(bytes as Uint8Array).toString('hex');
/** A nonce: 12 random bytes, the expiry (Unix seconds, 10 hex digits), a 16-byte MAC; alphanumeric as SIWE wants. */
const NONCE = /^([0-9a-f]{24})([0-9a-f]{10})([0-9a-f]{32})$/;

function refused(reason: string): SignInResult {
  return { ok: false, reason };
}

/** The service's key for the nonces' MACs, as `crypto.subtle.importKey` gives it. */
type NonceKey = ReturnType<typeof crypto.subtle.importKey>;

/** The MAC of a nonce's `body` under the service's key, cut to 16 bytes. */
async function nonceMac(hmacKey: NonceKey, body: string): Promise<string> {
  return hex(
    await crypto.subtle.sign('HMAC', await hmacKey, encoder.encode(`website-checks/sign-in-nonce\0${body}`)),
  ).slice(0, 32);
}

async function issueNonce(hmacKey: NonceKey, expiresS: number): Promise<string> {
  const body = `${hex(crypto.getRandomValues(new Uint8Array(12)))}${expiresS.toString(16).padStart(10, '0')}`;
  return `${body}${await nonceMac(hmacKey, body)}`;
}

/** The nonce's expiry (epoch ms) when this service issued it, else null. */
async function issuedNonceExpiry(hmacKey: NonceKey, nonce: string): Promise<number | null> {
  const match = NONCE.exec(nonce);
  if (!match?.[1] || !match[2] || !match[3]) return null;
  // Compared as MACs of the same length; a mismatch in any place is a refusal.
  if ((await nonceMac(hmacKey, `${match[1]}${match[2]}`)) !== match[3]) return null;
  return Number.parseInt(match[2], 16) * 1000;
}

/** The later of this server's clock and the chain's latest block: a message expired on either is expired. */
async function latestNow(now: () => number, chain: SignInDeps['chain']): Promise<number> {
  const local = now();
  if (!chain) return local;
  const block = await chain.latestBlockTime().catch(() => null);
  return block === null ? local : Math.max(local, Number(block) * 1000);
}

export function createSignIn(deps: SignInDeps): SignIn {
  const { network, chain, ledger } = deps;
  const now = deps.now ?? Date.now;
  const origin = new URL(deps.origin);
  const hmacKey = crypto.subtle.importKey(
    'raw',
    encoder.encode(deps.key),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  return {
    async challenge(resourceUrl) {
      const issuedAt = now();
      const expires = Math.floor(issuedAt / 1000) + CHALLENGE_TTL_S;
      const resource = new URL(new URL(resourceUrl).pathname, origin).href;
      return {
        info: {
          domain: origin.host,
          uri: resource,
          version: '1',
          statement: 'Sign in with the wallet that paid, to manage the watches it bought.',
          nonce: await issueNonce(hmacKey, expires),
          issuedAt: new Date(issuedAt).toISOString(),
          expirationTime: new Date(expires * 1000).toISOString(),
          resources: [resource],
        },
        supportedChains: [{ chainId: network, type: 'eip191' }],
        schema: buildSIWxSchema(),
      };
    },

    async verify(header, use = 'spend') {
      if (header.length > MAX_PROOF_LENGTH)
        return refused(`The proof is over ${MAX_PROOF_LENGTH} characters.`);
      let payload;
      try {
        payload = parseSIWxHeader(header);
      } catch (error) {
        return refused(error instanceof Error ? error.message : 'The proof cannot be read.');
      }
      if (payload.chainId !== network)
        return refused(`The message is for chain ${payload.chainId}; payments here are on ${network}.`);
      if (!/^0x[0-9a-fA-F]{40}$/.test(payload.address)) return refused('The address is not an EVM address.');
      const validated = await validateSIWxMessage(payload, origin, {
        maxAge: CHALLENGE_TTL_S * 1000,
      });
      if (!validated.isValid) return refused(validated.invalidMessage);
      const nonceExpiry = await issuedNonceExpiry(hmacKey, payload.nonce);
      if (nonceExpiry === null) return refused('The nonce was not issued by this service.');
      if (!payload.expirationTime) return refused('The message has no expirationTime.');
      const expiresAt = Math.min(Date.parse(payload.expirationTime), nonceExpiry);
      const at = await latestNow(now, chain);
      if (at >= expiresAt) return refused('The message has expired.');
      const verified = await verifySIWxSignature(
        payload,
        chain ? { evmVerifier: (args) => chain.verifyMessage(args) } : undefined,
      );
      if (!verified.isValid) return refused(verified.invalidMessage);
      const payer = verified.payer.toLowerCase() as `0x${string}`;
      const { nonce } = payload;
      if (use === 'spend') {
        // Spent only once the signature holds, so nobody can burn another wallet's challenge.
        if (!(await ledger.acceptNonce(nonce, nonceExpiry))) return refused(SPENT_NONCE);
        return { ok: true, payer };
      }
      const holder = await ledger.nonceHolder(nonce);
      // A free call's, or any payment's for a request that can only lead to a new one: used up.
      if (holder === '' || (holder !== null && use === 'ask')) return refused(SPENT_NONCE);
      return { ok: true, payer, spendFor: (boundTo) => ledger.acceptNonce(nonce, nonceExpiry, boundTo) };
    },
  };
}
