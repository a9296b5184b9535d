/**
 * Settlement as a small state machine whose truth is on chain. The facilitator's answer is taken
 * when it is conclusive; when it is not (the send's answer was lost, the receipt wait failed, the
 * RPC or the facilitator failed mid-way), the chain is asked about the authorization itself until
 * the question is decided or the settlement deadline passes:
 *
 *   settle ─┬─ success ─────────────────────────────────────────────▶ settled      (deliver)
 *           ├─ refused, nothing sent, chain reachable ───────────────▶ refused      (402)
 *           ├─ failed before anything was sent ──────────────────────▶ unavailable  (503)
 *           └─ maybe sent ─▶ reconcile ─┬─ authorization used ──────▶ settled      (deliver)
 *                                       ├─ provably unusable ───────▶ unavailable  (503)
 *                                       └─ chain unreadable ─┬─ sent ▶ unconfirmed  (deliver)
 *                                                            └─ else ▶ unavailable  (503)
 *
 * "Provably unusable": the authorization is unused and our transaction reverted, or another
 * transaction of the settler was mined at our transaction's account nonce (ours can never be), or
 * it is a time past its `validBefore` (EIP-3009 refuses it from then on).
 *
 * Every JSON-RPC request of a settlement is aborted at its deadline (`rpc-deadline.ts`): the 50 s
 * bound while the chain cannot be read, so a hung RPC is answered within it; past it only while the
 * chain answers and an authorization still valid may yet be proven unusable.
 */
import type { x402ResourceServer } from '@x402/core/server';
import {
  type Network,
  type PaymentPayload,
  type PaymentRequirements,
  SettleError,
  type SettleResponse,
} from '@x402/core/types';
import type { BroadcastJournal } from './broadcast-journal.ts';
import type { ChainView } from '../chain/chain-view.ts';
import {
  type ExactAuthorization,
  exactAuthorizationOf,
  isBytes32Hex,
  MAX_TIMEOUT_SECONDS,
} from '../exact-authorization.ts';
import { faultScope } from '../chain/rpc-faults.ts';
import { withRpcDeadline } from '../chain/rpc-deadline.ts';
import type { ChainClock } from '../chain/chain-clock.ts';

/**
 * How long a settlement may take in all, reconciliation included; it runs on past this to 2 s after
 * its authorization's provable expiry (`validBefore` + `EXPIRY_MARGIN_MS`) when that is later, so an
 * unused authorization is always proven unusable rather than left unknown.
 */
export const SETTLEMENT_DEADLINE_MS = 50_000;
/** How far ahead of our clock an authorization's `validBefore` may be, beyond the signed-for window. */
export const CLOCK_SKEW_ALLOWANCE_S = 30;
/** How often reconciliation asks the chain again. */
export const RECONCILE_POLL_MS = 500;
/** Past `validBefore` by this much on our clock, no block can still include the authorization. */
export const EXPIRY_MARGIN_MS = 5_000;
/** The longest any settlement can take: an authorization at the edge of the allowed window, proven unusable. */
export const SETTLEMENT_MAX_MS =
  (MAX_TIMEOUT_SECONDS + CLOCK_SKEW_ALLOWANCE_S) * 1000 + EXPIRY_MARGIN_MS + 2_000;

/**
 * Left for reconciliation when the facilitator's settle is cut at the deadline: a few reads of the
 * chain, so a transaction sent is found rather than delivered unconfirmed.
 */
const RECONCILE_RESERVE_MS = 6_000;
/** Looks in a row that must see another transaction mined at our nonce before ours counts as never minable. */
const SUPERSEDED_LOOKS = 2;

/** The SDK's reason for a broadcast whose receipt did not come in time. */
const SETTLEMENT_PENDING = 'settlement_pending';

export type SettlementOutcome =
  /** The payer paid: deliver the result with `receipt`. */
  | { status: 'settled'; receipt: SettleResponse }
  /** Our transaction was sent, and the chain could not be read until the deadline: deliver, unconfirmed. */
  | { status: 'unconfirmed'; receipt: SettleResponse }
  /** The payment itself is no good (e.g. funds moved since verify): 402, nothing charged. */
  | { status: 'refused'; reason: string }
  /** Payments could not be taken (facilitator, RPC or chain): 503, nothing charged. */
  | { status: 'unavailable' };

export interface SettlementDeps {
  resourceServer: Pick<x402ResourceServer, 'settlePayment'>;
  network: Network;
  /** Read access to the chain; without it an inconclusive settlement cannot be reconciled. */
  chain?: ChainView;
  /** Transactions signed in-process (self-settlement); absent with a remote facilitator. */
  broadcasts?: BroadcastJournal;
  /** Called when a transaction we signed (at account nonce `nonce`) is known never to be used, so the nonce is reissued. */
  onAbandoned?: (nonce: number) => Promise<void>;
  /**
   * The chain's clock, which an authorization's expiry is judged by (our clock may be off by
   * minutes); default: `now`.
   */
  clock?: Pick<ChainClock, 'now'>;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  deadlineMs?: number;
  pollMs?: number;
}

export type Settle = (
  payload: PaymentPayload,
  requirements: PaymentRequirements,
  extensions?: Record<string, unknown>,
) => Promise<SettlementOutcome>;

export function createSettlement(deps: SettlementDeps): Settle {
  const {
    resourceServer,
    network,
    chain,
    broadcasts,
    onAbandoned = async () => {},
    now = Date.now,
    clock = { now },
    sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    deadlineMs = SETTLEMENT_DEADLINE_MS,
    pollMs = RECONCILE_POLL_MS,
  } = deps;

  return async function settle(payload, requirements, extensions) {
    const authorization = exactAuthorizationOf(payload);
    // On our clock: when the authorization is provably unusable on the chain's.
    const provenUnusableAt = authorization
      ? Number(authorization.validBefore) * 1000 + EXPIRY_MARGIN_MS + (now() - clock.now())
      : 0;
    // While the chain cannot be read, answer by `bound`; while it can, go on to `deadline`.
    const bound = now() + deadlineMs;
    const deadline = Math.max(bound, provenUnusableAt + 2_000);
    let response: SettleResponse | undefined;
    let faulted = true;
    try {
      ({ value: response, faulted } = await withRpcDeadline(
        wallClock(now, bound - RECONCILE_RESERVE_MS),
        () => faultScope(() => resourceServer.settlePayment(payload, requirements, extensions)),
      ));
    } catch (error) {
      // A facilitator that answered with a refusal; anything else leaves `response` undefined.
      if (error instanceof SettleError) {
        faulted = false;
        const { errorReason, payer, transaction } = error;
        response = { success: false, errorReason, payer, transaction, network: error.network };
      }
    }
    const signed = authorization ? broadcasts?.take(authorization.key) : undefined;
    if (response?.success) return { status: 'settled', receipt: receiptOf(response, network) };

    const reportedHash = txHash(response?.transaction);
    const hash = signed?.hash ?? reportedHash;
    // In-process, an empty journal proves nothing was sent; a remote facilitator's error proves nothing.
    const maybeSent =
      hash !== undefined || response?.errorReason === SETTLEMENT_PENDING || (!broadcasts && !response);
    if (!maybeSent) {
      return faulted || !response
        ? { status: 'unavailable' }
        : { status: 'refused', reason: response.errorReason ?? 'settlement_failed' };
    }
    const payer = authorization?.from ?? response?.payer;
    if (!chain || !authorization) return unconfirmed(hash, payer, network);

    const verdict = await reconcile(
      {
        chain,
        asset: requirements.asset as `0x${string}`,
        now,
        sleep,
        pollMs,
        bound,
        deadline,
        provenUnusableAt,
      },
      authorization,
      hash,
      signed,
    );
    if (verdict === 'settled') {
      return { status: 'settled', receipt: { success: true, transaction: hash ?? '', network, payer } };
    }
    // Our transaction did not mine: its account nonce is given back, so no gap it may have left
    // holds every later settlement back. Should that fail, the next settlement fills the gap
    // (`redis/settler-nonces.ts`). Not awaited: it asks the chain again, and the answer is due.
    if (signed) void onAbandoned(signed.nonce).catch(() => {});
    return verdict === 'unusable' ? { status: 'unavailable' } : unconfirmed(hash, payer, network);
  };
}

/** A transaction we know was handed to the chain is delivered for; without one, nothing is. */
function unconfirmed(
  hash: string | undefined,
  payer: string | undefined,
  network: Network,
): SettlementOutcome {
  if (!hash) return { status: 'unavailable' };
  return {
    status: 'unconfirmed',
    receipt: {
      success: false,
      errorReason: 'settlement_unconfirmed',
      transaction: hash,
      network,
      ...(payer ? { payer } : {}),
    },
  };
}

/** `at` on the settlement's clock `now`, as a wall-clock time for the RPC requests' deadline. */
const wallClock = (now: () => number, at: number) => Date.now() + (at - now());

/** What one settlement's reconciliation asks the chain with, and until when. */
interface Reconciliation {
  chain: ChainView;
  asset: `0x${string}`;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  pollMs: number;
  /** While the chain cannot be read, answer by `bound`; while it can, go on to `deadline`. */
  bound: number;
  deadline: number;
  /** From this time on `now`, no block can still include the authorization. */
  provenUnusableAt: number;
}

/** Asks the chain about the authorization until it is decided or the deadline passes. */
async function reconcile(
  reconciliation: Reconciliation,
  authorization: ExactAuthorization,
  tx: `0x${string}` | undefined,
  ours: { raw: `0x${string}`; nonce: number } | undefined,
): Promise<'settled' | 'unusable' | 'unknown'> {
  const { now, sleep, pollMs, bound, deadline } = reconciliation;
  const looks = { readable: false, superseded: 0 };
  for (;;) {
    const look = () => lookOnce(reconciliation, looks, authorization, tx, ours);
    const verdict = await withRpcDeadline(wallClock(now, looks.readable ? deadline : bound), look);
    if (verdict) return verdict;
    if (now() + pollMs > (looks.readable ? deadline : bound)) return 'unknown';
    await sleep(pollMs);
  }
}

/**
 * One look at the chain; `looks` carries from one to the next whether the chain could be read and
 * how many looks in a row saw our account nonce taken by another transaction.
 */
async function lookOnce(
  { chain, asset, now, provenUnusableAt }: Reconciliation,
  looks: { readable: boolean; superseded: number },
  { from, nonce, validBefore }: ExactAuthorization,
  tx: `0x${string}` | undefined,
  ours: { raw: `0x${string}`; nonce: number } | undefined,
): Promise<'settled' | 'unusable' | undefined> {
  // Read before our receipt: a nonce mined by then and no receipt of ours after means another
  // transaction took it.
  const taken = ours && chain.nonceMined ? await chain.nonceMined(ours.nonce).catch(() => false) : false;
  // Each question on its own: a failing receipt lookup must not hide the authorization state.
  const mined = tx ? await chain.receiptStatus(tx).catch(() => undefined) : 'not_found';
  if (mined === 'success') return 'settled';
  looks.superseded = taken && mined === 'not_found' ? looks.superseded + 1 : 0;
  try {
    const blockTime = await chain.latestBlockTime();
    // A revert of ours may mean someone else used the authorization first: it paid us all the same.
    if (await chain.authorizationUsed(asset, from, nonce)) return 'settled';
    looks.readable = true;
    const expired = blockTime >= validBefore || now() >= provenUnusableAt;
    if (mined === 'reverted' || expired || looks.superseded >= SUPERSEDED_LOOKS) return 'unusable';
  } catch {
    // The RPC is failing: ask again until the deadline.
    looks.readable = false;
  }
  if (ours) await chain.rebroadcast(ours.raw).catch(() => {});
  return undefined;
}

/** The receipt a client sees: the facilitator's answer without its free-text message. */
function receiptOf(response: SettleResponse, network: Network): SettleResponse {
  const { success, transaction, payer, errorReason } = response;
  return {
    success,
    transaction,
    network: response.network ?? network,
    ...(payer ? { payer } : {}),
    ...(errorReason ? { errorReason } : {}),
  };
}

function txHash(value: string | undefined): `0x${string}` | undefined {
  return value && isBytes32Hex(value) ? value : undefined;
}

/**
 * True when the authorization is valid for longer than the signed-for window (plus clock skew):
 * its expiry, which bounds how long an uncertain settlement can take, would lie too far ahead.
 */
export function authorizationWindowTooLong(
  authorization: Pick<ExactAuthorization, 'validBefore'>,
  maxWindowS: number,
  nowMs: number,
): boolean {
  return authorization.validBefore > BigInt(Math.floor(nowMs / 1000) + maxWindowS + CLOCK_SKEW_ALLOWANCE_S);
}
