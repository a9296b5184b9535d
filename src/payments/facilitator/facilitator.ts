/**
 * The x402 facilitator for each payment mode: a remote HTTP facilitator, or an
 * in-process one that verifies and settles itself over JSON-RPC (self mode, and the local chain).
 */

import { x402Facilitator } from '@x402/core/facilitator';
import type { FacilitatorClient } from '@x402/core/server';
import { HTTPFacilitatorClient } from '@x402/core/server';
import type { Network, SupportedResponse } from '@x402/core/types';
import { toFacilitatorEvmSigner } from '@x402/evm';
import { type Abi, concat, createWalletClient, encodeFunctionData, keccak256, publicActions } from 'viem';
import { LRUCache } from 'lru-cache';
import { privateKeyToAccount } from 'viem/accounts';
import type { Config } from '../../config.ts';
import { baseChainAt } from '../chain/base-chain.ts';
import { type ChainClock, chainClock } from '../chain/chain-clock.ts';
import { type BroadcastJournal, createBroadcastJournal } from './broadcast-journal.ts';
import { type ChainView, createChainView, rpcClient, rpcTransport } from '../chain/chain-view.ts';
import type { LocalChain } from '../chain/local-chain.ts';
import { authorizationKey } from '../exact-authorization.ts';
import { ChainTimedExactScheme, type TwoStepWrite } from './exact-scheme.ts';
import { tracked } from '../chain/rpc-faults.ts';
import { afterRequestsSent } from '../../sources/on-the-wire.ts';
import {
  processNonces,
  sendOnOwnNonce,
  type SettlerNonces,
  type SettlerNoncesFor,
  type SignedTransaction,
} from './settler-nonces.ts';

// The local chain mines each transaction at once; poll its receipts often rather than every second.
const LOCAL_RECEIPT_POLL_MS = 50;
/** Receipt polling against a real chain when not configured: a few looks per 2 s Base block. */
const SELF_RECEIPT_POLL_MS = 250;
/**
 * One payment asks for the payer's (and the asset's) code several times in verify and settle; the
 * answer is kept this long, so a payment fetches each once.
 */
const CODE_TTL_MS = 5_000;
/** How long one receipt wait lasts before the settlement is reconciled from the chain instead. */
export const RECEIPT_WAIT_MS = 6_000;
/**
 * A receipt not there after this may be waiting behind a nonce another settlement abandoned: from
 * then on the abandoned nonces are looked for (and filled) this often while the wait lasts.
 */
const GAP_LOOK_AFTER_MS = 1_000;
const GAP_LOOK_EVERY_MS = 500;

/** A facilitator and what settlement needs beside it to find out what happened on chain. */
export interface Facilitator {
  client: FacilitatorClient;
  /** Chain reads for reconciliation: the settling RPC in-process, `X402_RPC_URL` (if set) with a remote facilitator. */
  chain?: ChainView;
  /** Settlement transactions signed in-process; absent with a remote facilitator. */
  broadcasts?: BroadcastJournal;
  /** Gives back the settler's account nonce `nonce` after the transaction signed with it was abandoned. */
  onAbandoned?: (nonce: number) => Promise<void>;
  /** The chain's clock, which this facilitator judges authorizations' windows by; absent with a remote one. */
  clock?: ChainClock;
  /**
   * Told that the check paid for by an authorization (its key) is done and its settlement follows:
   * settle's first questions to the chain leave at once, and the promise resolves once they have
   * left. Where verify prepares the settlement.
   */
  settlementFollows?: (authorizationKey: string) => Promise<void>;
}

/**
 * The facilitator the resource server talks to, chosen by `config.x402.mode`:
 * - `remote`: `HTTPFacilitatorClient` on `X402_FACILITATOR_URL`, sending `X402_FACILITATOR_AUTH_HEADER`
 *   (if set) on verify, settle and supported;
 * - `self`: an in-process facilitator settling on `X402_RPC_URL`, gas paid by `X402_SETTLER_PRIVATE_KEY`;
 * - `local-chain`: the same, on `local` (required in this mode) with its settler key.
 */
export function createFacilitator(
  config: Config,
  local?: LocalChain,
  settling: Pick<InProcessOptions, 'nonces' | 'prepareAhead'> = {},
): Facilitator {
  const mode = config.x402.mode;
  switch (mode.kind) {
    case 'remote': {
      const chain = mode.rpcUrl ? createChainView(rpcClient(mode.rpcUrl)) : undefined;
      const header = mode.authHeader;
      if (!header) return { client: new HTTPFacilitatorClient({ url: mode.facilitatorUrl.href }), chain };
      const headers = { [header.name]: header.value };
      const client = new HTTPFacilitatorClient({
        url: mode.facilitatorUrl.href,
        // Keyed by path, as HTTPFacilitatorClient requires (a flat object throws).
        createAuthHeaders: async () => ({ verify: headers, settle: headers, supported: headers }),
      });
      return { client, chain };
    }
    case 'self':
      return createInProcessFacilitator({
        network: config.x402.network,
        rpcUrl: mode.rpcUrl,
        settlerPrivateKey: mode.settlerPrivateKey,
        receiptPollMs: mode.receiptPollMs,
        ...settling,
      });
    case 'local-chain':
      if (!local) throw new Error('payment mode local-chain needs a started LocalChain (startLocalChain)');
      return createInProcessFacilitator({
        network: config.x402.network,
        rpcUrl: local.rpcUrl,
        settlerPrivateKey: local.settler.privateKey,
        receiptPollMs: LOCAL_RECEIPT_POLL_MS,
        ...settling,
      });
  }
}

/** The `FacilitatorClient` alone, for callers that only verify and settle. */
export function createFacilitatorClient(config: Config, local?: LocalChain): FacilitatorClient {
  return createFacilitator(config, local).client;
}

interface InProcessOptions {
  network: Network;
  rpcUrl: URL;
  /** Pays the gas of every settlement; needs ETH on the chain. */
  settlerPrivateKey: `0x${string}`;
  /** How often to poll for a settlement's receipt (`X402_RECEIPT_POLL_MS`; default `SELF_RECEIPT_POLL_MS`). */
  receiptPollMs?: number;
  /** Who hands out the settler's account nonces; default: this process (`processNonces`). */
  nonces?: SettlerNoncesFor | undefined;
  /**
   * Whether verify prepares the settlement transaction while the check runs: for a process that
   * settles what it verifies (default false).
   */
  prepareAhead?: boolean;
}

/**
 * An in-process x402 facilitator for the exact EVM scheme. Its settlement transaction is signed
 * here and journaled under its payment key before it is sent, so a send whose answer is lost can be
 * found on chain by hash; RPC failures during verify and settle are recorded (`rpc-faults.ts`).
 */
export function createInProcessFacilitator(options: InProcessOptions): Facilitator {
  const { network, rpcUrl, settlerPrivateKey, receiptPollMs = SELF_RECEIPT_POLL_MS } = options;
  const account = privateKeyToAccount(settlerPrivateKey);
  const chain = baseChainAt(rpcUrl);
  const wallet = createWalletClient({
    account,
    chain,
    transport: rpcTransport(rpcUrl),
    pollingInterval: receiptPollMs,
  }).extend(publicActions);
  const broadcasts = createBroadcastJournal();

  /**
   * `request` from the settler, with its fees, gas and type, then signed at whichever nonce it is
   * given: the nonce is taken apart.
   */
  const signerFor = async (request: { to: `0x${string}`; data?: `0x${string}`; value?: bigint }) => {
    const prepared = await wallet.prepareTransactionRequest({
      account,
      chain,
      ...request,
      // The chain id is known; the nonce is taken last, once nothing that can fail stands between
      // it and the send.
      chainId: chain.id,
      parameters: ['fees', 'gas', 'type'],
    });
    // Signed by the account itself: the wallet action would ask the node for its chain id again.
    return (nonce: number) =>
      account.signTransaction({ ...prepared, nonce } as Parameters<typeof account.signTransaction>[0]);
  };
  const sendRaw = (signed: SignedTransaction) => wallet.sendRawTransaction({ serializedTransaction: signed });

  // One nonce sequence per settler: concurrent settlements never share one.
  const nonces = (options.nonces ?? processNonces(rpcUrl))(
    { address: account.address, chainId: chain.id },
    {
      pendingNonce: () => wallet.getTransactionCount({ address: account.address, blockTag: 'pending' }),
      fill: async (nonce) => sendRaw(await (await signerFor({ to: account.address, value: 0n }))(nonce)),
    },
  );
  const sending: Sending = { nonces, broadcasts, signerFor, sendRaw };

  const code = memo<Awaited<ReturnType<typeof wallet.getCode>>>(CODE_TTL_MS);
  const signer = toFacilitatorEvmSigner({
    address: account.address,
    getCode: (args) => code(keyOf(args), () => tracked(() => wallet.getCode(args))),
    readContract: (args) => tracked(() => wallet.readContract({ ...args, args: args.args ?? [] })),
    verifyTypedData: (args) =>
      tracked(() => wallet.verifyTypedData(args as Parameters<typeof wallet.verifyTypedData>[0])),
    writeContract: (args) => tracked(async () => (await prepareWrite(sending, args as WriteArgs))()),
    sendTransaction: (args) => tracked(() => send(sending, args)),
    waitForTransactionReceipt: (args) =>
      tracked(() =>
        fillingGapsMeanwhile(wallet.waitForTransactionReceipt({ ...args, timeout: RECEIPT_WAIT_MS }), nonces),
      ),
  });

  const view = createChainView(wallet);
  const clock = chainClock(view.chainTime);
  const facilitator = new x402Facilitator();
  const scheme = new ChainTimedExactScheme(signer, clock, twoStepWrite(sending, options.prepareAhead));
  facilitator.register(network, scheme);

  return {
    client: clientOf(facilitator),
    chain: {
      ...behindGapsFilled(view, nonces),
      nonceMined: async (nonce) =>
        nonce < (await wallet.getTransactionCount({ address: account.address, blockTag: 'latest' })),
    },
    broadcasts,
    onAbandoned: (nonce) => nonces.reissue(nonce),
    clock,
    ...(options.prepareAhead ? { settlementFollows: (key: string) => questionsLeave(scheme, key) } : {}),
  };
}

/** The in-process `facilitator` as the resource server's client. */
function clientOf(facilitator: x402Facilitator): FacilitatorClient {
  return {
    verify: (payload, requirements) => facilitator.verify(payload, requirements),
    settle: (payload, requirements) => facilitator.settle(payload, requirements),
    // The facilitator answers synchronously and types `network` as a plain string.
    getSupported: async () => facilitator.getSupported() as SupportedResponse,
  };
}

/**
 * `scheme.settlementFollows(key)`, resolved once the requests it began are on the wire, not after
 * the settlement's record and settle's own steps, which would otherwise run first on the one thread.
 */
function questionsLeave(scheme: ChainTimedExactScheme, key: string): Promise<void> {
  scheme.settlementFollows(key);
  return afterRequestsSent();
}

/** How the settler's transactions are numbered, journaled, signed and sent. */
interface Sending {
  nonces: SettlerNonces;
  broadcasts: BroadcastJournal;
  /** `request` prepared, then signed at whichever nonce it is given. */
  signerFor: (request: {
    to: `0x${string}`;
    data?: `0x${string}`;
  }) => Promise<(nonce: number) => Promise<SignedTransaction>>;
  sendRaw: (signed: SignedTransaction) => Promise<unknown>;
}

/** `prepareWrite` for the scheme, each step's RPC failures recorded (`tracked`). */
function twoStepWrite(sending: Sending, ahead = false): TwoStepWrite {
  return {
    ahead,
    expectSend: () => sending.nonces.readAhead(),
    prepareWrite: (args) =>
      tracked(async () => {
        const send = await prepareWrite(sending, args as WriteArgs);
        return () => tracked(send);
      }),
  };
}

/**
 * Prepares the contract call (its fees and gas: the node runs it to estimate them), and gives the
 * send: signs at the next account nonce, journals, then sends; the hash is known whatever becomes
 * of the send.
 */
async function prepareWrite(
  { nonces, broadcasts, signerFor, sendRaw }: Sending,
  args: WriteArgs,
): Promise<() => Promise<`0x${string}`>> {
  const data = encodeFunctionData({ abi: args.abi, functionName: args.functionName, args: args.args });
  const sign = await signerFor({
    to: args.address,
    data: args.dataSuffix ? concat([data, args.dataSuffix]) : data,
  });
  return async () => {
    const raw = await sendOnOwnNonce(
      nonces,
      async (nonce) => {
        const signed = await sign(nonce);
        const [from, , , , , authorizationNonce] = args.args as readonly unknown[];
        if (typeof from === 'string' && typeof authorizationNonce === 'string') {
          broadcasts.record(authorizationKey(from, authorizationNonce), {
            hash: keccak256(signed),
            raw: signed,
            nonce,
          });
        }
        return signed;
      },
      sendRaw,
    );
    return keccak256(raw);
  };
}

/** Any other transaction of the settler (a smart wallet's deployment), numbered by the same owner. */
async function send(
  { nonces, signerFor, sendRaw }: Sending,
  args: { to: `0x${string}`; data: `0x${string}` },
): Promise<`0x${string}`> {
  return keccak256(await sendOnOwnNonce(nonces, await signerFor(args), sendRaw));
}

/**
 * `view`, where re-sending one of our transactions also fills the nonces other settlements
 * abandoned: a transaction being reconciled may be waiting behind one of them.
 */
function behindGapsFilled(view: ChainView, nonces: Pick<SettlerNonces, 'fillAbandoned'>): ChainView {
  return {
    ...view,
    async rebroadcast(raw) {
      await view.rebroadcast(raw).finally(() => nonces.fillAbandoned().catch(() => {}));
    },
  };
}

/**
 * `wait`, during which the nonces other settlements abandoned are filled once it has lasted
 * `GAP_LOOK_AFTER_MS`: the transaction waited for may be held behind one of them, and no new
 * allocation may come to fill it.
 */
async function fillingGapsMeanwhile<T>(
  wait: Promise<T>,
  nonces: Pick<SettlerNonces, 'fillAbandoned'>,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const look = (afterMs: number) => {
    timer = setTimeout(() => {
      void nonces.fillAbandoned().catch(() => {});
      look(GAP_LOOK_EVERY_MS);
    }, afterMs);
  };
  look(GAP_LOOK_AFTER_MS);
  try {
    return await wait;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Answers by key for `ttlMs`, concurrent asks sharing one call; a failed call is not kept. For
 * questions whose answer cannot change within the TTL in a way that matters (code, signatures).
 */
function memo<T>(ttlMs: number): (key: string, load: () => Promise<T>) => Promise<T> {
  const answers = new LRUCache<string, Promise<T>>({ max: 1024, ttl: ttlMs });
  return (key, load) => {
    let answer = answers.get(key);
    if (!answer) {
      answer = load();
      answers.set(key, answer);
      answer.catch(() => answers.delete(key));
    }
    return answer;
  };
}

/** A stable key for viem call arguments (bigints included). */
function keyOf(args: unknown): string {
  return JSON.stringify(args, (_, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value));
}

/** What the x402 scheme passes to `writeContract` (its `transferWithAuthorization` call). */
interface WriteArgs {
  address: `0x${string}`;
  abi: Abi;
  functionName: string;
  args: readonly unknown[];
  dataSuffix?: `0x${string}`;
}
