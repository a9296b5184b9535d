/** The official x402 client paying as one account on the local chain (Base, 8453). */
import { x402Client } from '@x402/core/client';
import type { PaymentPayload } from '@x402/core/types';
import { authorizationTypes } from '@x402/evm';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import type { PrivateKeyAccount } from 'viem/accounts';

export function clientFor(payer: PrivateKeyAccount): x402Client {
  return x402Client.fromConfig({ schemes: [{ network: 'eip155:8453', client: new ExactEvmScheme(payer) }] });
}

/**
 * `fetch` that pays as `payer` with the official `@x402/fetch` wrapper, each request sent by `send`
 * (`fetch` or one that passes its arguments on to it). The wrapper sends clones of the caller's
 * request, whose signal stops following the caller's once a garbage collection takes the
 * intermediate copies (nodejs/undici#4068), and an abort was lost: the caller's own signal goes
 * with every request `send` is given, for `fetch` to follow directly.
 */
export function payingFetchFor(payer: PrivateKeyAccount, send: typeof fetch = fetch): typeof fetch {
  const client = clientFor(payer);
  return (input, init) => {
    const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
    const keepingSignal: typeof fetch = (request, options) =>
      send(request, signal ? { ...options, signal } : options);
    return wrapFetchWithPayment(keepingSignal, client)(input, init);
  };
}

/** The fields of an exact EIP-3009 authorization, as a payload carries them. */
export interface AuthorizationFields {
  from: `0x${string}`;
  to: `0x${string}`;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: `0x${string}`;
}

/** The authorization `payload` carries. */
export function authorizationOf(payload: PaymentPayload): AuthorizationFields {
  return (payload.payload as { authorization: AuthorizationFields }).authorization;
}

/**
 * `payload` carrying `authorization` instead, signed correctly by `payer` (EIP-3009 typed data on
 * the domain of the token `payload` accepted), so that only the content differs from what a
 * standard client builds.
 */
export async function resigned(
  payer: PrivateKeyAccount,
  payload: PaymentPayload,
  authorization: AuthorizationFields,
): Promise<PaymentPayload> {
  const signature = await payer.signTypedData({
    domain: {
      name: String(payload.accepted.extra?.name),
      version: String(payload.accepted.extra?.version),
      chainId: 8453,
      verifyingContract: payload.accepted.asset as `0x${string}`,
    },
    types: { TransferWithAuthorization: authorizationTypes.TransferWithAuthorization },
    primaryType: 'TransferWithAuthorization',
    message: {
      ...authorization,
      value: BigInt(authorization.value),
      validAfter: BigInt(authorization.validAfter),
      validBefore: BigInt(authorization.validBefore),
    },
  });
  return { ...payload, payload: { signature, authorization } };
}
