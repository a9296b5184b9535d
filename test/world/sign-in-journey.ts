/**
 * The forgetful agent's journey with the official clients, for any runtime: it buys a pull-only
 * watch with `@x402/fetch`, forgets the 201, signs in later with the same key through the
 * `@x402/extensions` client hook (`x402HTTPClient.onPaymentRequired(createSIWxClientHook(…))`
 * inside `wrapFetchWithPayment`, the path that answers an auth-only 402 in 2.27.0), lists its
 * watches, reads the events it missed with `since`, rotates its token and cancels. A second wallet
 * sees none of it; hand-made proofs that must be refused are built here too.
 */
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import {
  type CompleteSIWxInfo,
  createSIWxClientHook,
  createSIWxPayload,
  encodeSIWxHeader,
  SIGN_IN_WITH_X,
  type SIWxExtension,
  type SIWxSigner,
} from '@x402/extensions/sign-in-with-x';
import { wrapFetchWithPayment, x402HTTPClient } from '@x402/fetch';
import type { PrivateKeyAccount } from 'viem/accounts';
import { expect } from 'vitest';
import { clientFor, payingFetchFor } from './payer-client.ts';

export interface ListedWatch {
  watch_id: string;
  domain: string;
  status: string;
}

/** `fetch` that pays as `payer` and signs in as `payer` when a route asks (the official client helpers). */
export function signingFetchFor(payer: PrivateKeyAccount): typeof fetch {
  const http = new x402HTTPClient(clientFor(payer)).onPaymentRequired(createSIWxClientHook(payer));
  return wrapFetchWithPayment(fetch, http);
}

/** Buys a pull-only watch of `domain` for `days` and returns only its id and token (the rest is "forgotten"). */
export async function buyPullOnly(
  base: URL,
  payer: PrivateKeyAccount,
  domain: string,
): Promise<{ watch_id: string; token: string }> {
  const res = await payingFetchFor(payer)(new URL('/v1/watches', base), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ domain, days: 2 }),
  });
  const body = (await res.json()) as { watch_id: string; token: string };
  expect(res.status, JSON.stringify(body)).toBe(201);
  return body;
}

/** The auth-only challenge a route answers without credentials. */
export async function challengeOf(
  url: URL,
): Promise<{ required: PaymentRequired; extension: SIWxExtension }> {
  const res = await fetch(url);
  await res.arrayBuffer();
  expect(res.status).toBe(402);
  const required = decodePaymentRequiredHeader(res.headers.get('payment-required') ?? '');
  expect(required.accepts).toEqual([]);
  return { required, extension: required.extensions?.[SIGN_IN_WITH_X] as SIWxExtension };
}

/** A `SIGN-IN-WITH-X` header signed by `signer` over the challenge of `url`, with `change` applied to the message first. */
export async function proofFor(
  url: URL,
  signer: SIWxSigner,
  change: (info: CompleteSIWxInfo) => CompleteSIWxInfo = (info) => info,
  requestUrl: URL = url,
): Promise<string> {
  const { extension } = await challengeOf(url);
  const chain = extension.supportedChains[0]!;
  const info = change({ ...extension.info, chainId: chain.chainId, type: chain.type });
  return encodeSIWxHeader(await createSIWxPayload(info, signer, requestUrl));
}

/**
 * Extends the watch `watchId` by `days`, paid by `payer` with `@x402/fetch` and signed in as
 * `payer` instead of the token: one proof on the unpaid request and on its paid retry.
 */
export async function extendBySignIn(
  base: URL,
  payer: PrivateKeyAccount,
  watchId: string,
  days: number,
): Promise<{
  status: number;
  body: { days?: number; status?: string };
  /** The sign-in proof both requests carried. */
  proof: string;
  /** Whether each request `@x402/fetch` sent carried a payment: the unpaid one, then the paid retry. */
  paid: boolean[];
}> {
  const url = new URL(`/v1/watches/${watchId}/extend`, base);
  const proof = await proofFor(new URL(`/v1/watches/${watchId}`, base), payer, (info) => info, url);
  const paid: boolean[] = [];
  const signingIn: typeof fetch = (input, init) => {
    const request = new Request(input, init);
    request.headers.set(SIGN_IN_WITH_X, proof);
    paid.push(request.headers.has('payment-signature'));
    return fetch(request);
  };
  const res = await wrapFetchWithPayment(signingIn, clientFor(payer))(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ days }),
  });
  const body = (await res.json()) as { days?: number; status?: string };
  return { status: res.status, body, proof, paid };
}

export async function listed(signed: typeof fetch, base: URL): Promise<ListedWatch[]> {
  const res = await signed(new URL('/v1/watches', base));
  const body = (await res.json()) as { watches: ListedWatch[]; next_cursor: string | null };
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body.watches;
}

/**
 * Asserts that each hand-made proof of `owner` for `url` is refused with 401 `invalid_sign_in`, and
 * that a proof accepted once is refused when presented again.
 */
export async function expectRefusals(
  url: URL,
  owner: PrivateKeyAccount,
  other: PrivateKeyAccount,
  replayUrl: URL = url,
  acceptUrl: URL = url,
): Promise<void> {
  const past = (info: CompleteSIWxInfo) => ({
    ...info,
    issuedAt: new Date(Date.now() - 600_000).toISOString(),
    expirationTime: new Date(Date.now() - 300_000).toISOString(),
  });
  const otherOrigin = new URL(url.pathname, 'https://elsewhere.example.test');
  const proofs: [string, Promise<string>][] = [
    ['expired', proofFor(url, owner, past)],
    [
      'another origin',
      proofFor(
        url,
        owner,
        (info) => ({ ...info, domain: otherOrigin.host, uri: otherOrigin.href }),
        otherOrigin,
      ),
    ],
    ['another chain', proofFor(url, owner, (info) => ({ ...info, chainId: 'eip155:1' }))],
    ['a nonce not issued here', proofFor(url, owner, (info) => ({ ...info, nonce: 'a1b2c3d4e5f6a7b8' }))],
  ];
  // Signed by another key, claiming the owner's address.
  const { extension } = await challengeOf(url);
  const chain = extension.supportedChains[0]!;
  const forged = await createSIWxPayload(
    { ...extension.info, chainId: chain.chainId, type: chain.type },
    other,
    url,
  );
  proofs.push(['another key', Promise.resolve(encodeSIWxHeader({ ...forged, address: owner.address }))]);
  for (const [label, proof] of proofs) {
    const res = await fetch(url, { headers: { [SIGN_IN_WITH_X]: await proof } });
    const body = (await res.json()) as { code: string; detail: string };
    expect(res.status, `${label}: ${JSON.stringify(body)}`).toBe(401);
    expect(body.code, label).toBe('invalid_sign_in');
  }
  // A proof accepted once (by `acceptUrl`'s instance) is refused the second time (by `replayUrl`'s).
  const once = await proofFor(url, owner);
  const first = await fetch(acceptUrl, { headers: { [SIGN_IN_WITH_X]: once } });
  await first.arrayBuffer();
  expect(first.status).toBe(200);
  const replayed = await fetch(replayUrl, { headers: { [SIGN_IN_WITH_X]: once } });
  expect(replayed.status).toBe(401);
  expect(((await replayed.json()) as { detail: string }).detail).toMatch(/already used/);
}

/**
 * Asserts that a sign-in on a paid extension is spent by the payment that is taken, for it alone: a
 * payment refused before the work (signed for other terms) leaves the proof good; the payment taken
 * spends it; that same paid call sent again (to `retryBase`'s instance, as after a lost answer)
 * gets the same result, charged once; an unpaid request or another payment with the proof is 401,
 * uncharged. Proofs are signed for `publicBase` (the service's `PUBLIC_BASE_URL`) and sent to `base`.
 */
export async function expectSignInSpentByItsPayment({
  base,
  retryBase = base,
  publicBase = base,
  payer,
  watchId,
  balanceOf,
  price,
}: {
  base: URL;
  retryBase?: URL;
  publicBase?: URL;
  payer: PrivateKeyAccount;
  watchId: string;
  balanceOf: (address: `0x${string}`) => Promise<bigint>;
  price: (days: number) => bigint;
}): Promise<void> {
  const path = `/v1/watches/${watchId}/extend`;
  const proof = await proofFor(
    new URL(`/v1/watches/${watchId}`, base),
    payer,
    (info) => info,
    new URL(path, publicBase),
  );
  const extend = (days: number, payment?: string, at: URL = base) =>
    fetch(new URL(path, at), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        [SIGN_IN_WITH_X]: proof,
        ...(payment ? { 'payment-signature': payment } : {}),
      },
      body: JSON.stringify({ days }),
    });
  const requiredFor = async (days: number) => {
    const unpaid = await extend(days);
    await unpaid.arrayBuffer();
    expect(unpaid.status).toBe(402);
    return decodePaymentRequiredHeader(unpaid.headers.get('payment-required') ?? '');
  };
  const paymentUnder = async (required: PaymentRequired) =>
    encodePaymentSignatureHeader(await clientFor(payer).createPaymentPayload(required));
  const paymentFor = async (days: number) => paymentUnder(await requiredFor(days));
  const start = await balanceOf(payer.address);

  const mismatched = await extend(2, await paymentFor(3));
  expect(mismatched.status).toBe(402);
  expect(JSON.stringify(await mismatched.json())).toMatch(/resource_mismatch/);
  expect(await balanceOf(payer.address)).toBe(start);

  const required = await requiredFor(2);
  const payment = await paymentUnder(required);
  const taken = await extend(2, payment);
  const result = (await taken.json()) as { days: number; expires_at: string };
  expect(taken.status, JSON.stringify(result)).toBe(200);
  const paid = start - price(2);
  expect(await balanceOf(payer.address)).toBe(paid);

  const again = await extend(2, payment, retryBase);
  expect(again.status).toBe(200);
  expect(await again.json()).toMatchObject({ days: result.days, expires_at: result.expires_at });
  expect(await balanceOf(payer.address)).toBe(paid);

  // Used up for anything new: the unpaid request that would start another payment, and another
  // payment signed over the same challenge.
  const unpaidAgain = await extend(2);
  expect(unpaidAgain.status).toBe(401);
  expect(await unpaidAgain.json()).toMatchObject({ code: 'invalid_sign_in', reason: /already used/ });
  const another = await extend(2, await paymentUnder(required));
  expect(another.status).toBe(401);
  expect(await another.json()).toMatchObject({ code: 'invalid_sign_in', reason: /already used/ });
  expect(await balanceOf(payer.address)).toBe(paid);
}
