/**
 * Who hands out the account nonces of a settler wallet. Concurrent settlements from one key collide
 * on the nonce without a single owner: in one process (a Node instance alone, the Worker's
 * `SettlerObject`) that owner is `processNonces`; across instances it is the shared store
 * (`redis/settler-nonces.ts`). Both allocate nonces one by one without serializing the sends, and
 * fill a nonce whose transaction will never be sent with a transfer of 0 ETH, so no later
 * transaction waits behind it.
 */
export interface SettlerWallet {
  address: `0x${string}`;
  chainId: number;
}

/** A signed transaction, as the node takes it. */
export type SignedTransaction = `0x${string}`;

/** The account nonces of one settler wallet. */
export interface SettlerNonces {
  /**
   * Signs a transaction with the next account nonce (`sign`) and hands it to the node (`broadcast`);
   * no other settlement of the wallet gets that nonce, which counts as used once `sign` is called.
   * Resolves with what was sent; rejects when the nonce could not be had or the broadcast failed.
   */
  send(
    sign: (nonce: number) => Promise<SignedTransaction>,
    broadcast: (raw: SignedTransaction) => Promise<unknown>,
  ): Promise<SignedTransaction>;
  /**
   * The transaction we signed at `nonce` is known never to be used (it reverted, or its authorization
   * expired unmined): the nonce is given back, so no later settlement waits behind it. Resolves once
   * that is so.
   */
  reissue(nonce: number): Promise<void>;
  /**
   * A send follows in a moment (settle calls this beside its simulation): the chain's count is read
   * now, so the send need not wait for a read of its own (`COUNT_AHEAD_MS`).
   */
  readAhead(): void;
  /**
   * Fills the nonces other settlements were given and abandoned (their process died before the
   * send, their send failed), which a transaction of ours may be waiting behind.
   */
  fillAbandoned(): Promise<void>;
}

/**
 * Makes the nonce owner of `wallet`, given the wallet client, how to read its pending nonce from
 * the chain, and how to send a transaction at `nonce` that moves nothing (a transfer of 0 ETH from
 * the settler to itself), to fill a nonce whose own transaction was abandoned.
 */
export type SettlerNoncesFor = (
  wallet: SettlerWallet,
  chain: {
    pendingNonce: () => Promise<number>;
    fill: (nonce: number) => Promise<unknown>;
  },
) => SettlerNonces;

/**
 * True when the node refused a transaction because another one holds its account nonce (mined, or
 * waiting in the pool at the same fees): the transaction was not taken and never will be, and its
 * nonce is another's. A Redis restarted empty can hand one nonce to two settlements while the first
 * one's transaction is still on its way to the node (docs/fleet.md).
 */
export function nonceTaken(error: unknown): boolean {
  return error instanceof Error && /nonce too low|replacement transaction underpriced/i.test(error.message);
}

/**
 * How long a read of the chain's count begun ahead of a send (`readAhead`) stands in for the send's
 * own. The count is only a floor under the nonces allocated since: a transaction another program
 * sent with the key meanwhile makes the node refuse ours as taken, and the send signs again after a
 * fresh read (`sendOnOwnNonce`).
 */
export const COUNT_AHEAD_MS = 1_000;

/**
 * The chain's count as a send takes it (`count`): the read begun ahead (`begin`) while it is younger
 * than COUNT_AHEAD_MS and did not fail, else a read now; `forget` drops the read begun ahead once a
 * nonce proved taken.
 */
export function countAhead(read: () => Promise<number>, now: () => number = () => performance.now()) {
  let ahead: { at: number; count: Promise<number> } | undefined;
  return {
    begin(): void {
      const count = read();
      count.catch(() => {});
      ahead = { at: now(), count };
    },
    count(): Promise<number> {
      if (!ahead || now() - ahead.at > COUNT_AHEAD_MS) return read();
      return ahead.count.catch(read);
    },
    forget(): void {
      ahead = undefined;
    },
  };
}

/** How often a settlement whose nonce was taken by another transaction signs again with a fresh one. */
const TAKEN_RETRIES = 3;

/**
 * `nonces.send`, signed again with a fresh nonce while the node answers that the nonce is taken
 * (`nonceTaken`): such a transaction was never taken, so the settlement still has its own to send.
 */
export async function sendOnOwnNonce(
  nonces: Pick<SettlerNonces, 'send'>,
  ...args: Parameters<SettlerNonces['send']>
): Promise<SignedTransaction> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await nonces.send(...args);
    } catch (error) {
      if (attempt >= TAKEN_RETRIES || !nonceTaken(error)) throw error;
    }
  }
}

// One nonce owner per settler wallet and RPC endpoint: shared by every facilitator settling there
// from this process, and not carried over to another chain.
const owners = new Map<string, SettlerNonces>();

/** In this process: the one nonce owner of each settler wallet settling on the RPC endpoint `rpcUrl`. */
export function processNonces(rpcUrl: URL): SettlerNoncesFor {
  return (wallet, chain) => {
    const key = `${rpcUrl.href} ${wallet.chainId}:${wallet.address.toLowerCase()}`;
    let owner = owners.get(key);
    if (!owner) {
      owner = inProcessNonces(chain);
      owners.set(key, owner);
    }
    return owner;
  };
}

/**
 * The nonces of one wallet, allocated in this process as the shared store does across instances:
 *
 *   nonce = max(the chain's pending nonce, the next nonce allocated here)
 *
 * The chain's count is the floor (anything else that sent with the key); the count here covers the
 * sends in flight that the node does not count yet. The count here is never wound back: a
 * transaction the node holds behind a gap keeps its nonce, so no later settlement is given it again.
 * A nonce whose transaction will never reach the node (its signing or its send failed, or its
 * settlement gave it up) is given back and filled with a transfer of 0 ETH by the next allocation
 * or the next re-send of a settlement being reconciled, so nothing waits behind it until that
 * settlement's authorization expires. A send that failed while the node took it after all keeps its
 * nonce: the node refuses the fill.
 */
export function inProcessNonces({
  pendingNonce,
  fill,
}: Pick<Parameters<SettlerNoncesFor>[1], 'pendingNonce' | 'fill'>): SettlerNonces {
  let next = 0;
  const givenBack = new Set<number>();
  // Settlements starting together share one read of the chain's count: it is only a floor.
  const chainCount = singleFlight(pendingNonce);
  const floor = countAhead(chainCount);

  /** Fills the given-back nonces the chain does not count yet; one not filled is given back again. */
  async function fillGivenBack(pending: number): Promise<void> {
    const nonces = [...givenBack].filter((nonce) => nonce >= pending);
    givenBack.clear();
    await Promise.all(nonces.map((nonce) => fillOrGiveBack(nonce)));
  }
  const fillOrGiveBack = (nonce: number) =>
    fill(nonce).then(
      () => {},
      () => void givenBack.add(nonce),
    );

  return {
    async send(sign, broadcast) {
      const pending = await floor.count();
      const nonce = Math.max(pending, next);
      next = nonce + 1;
      const filled = fillGivenBack(pending);
      try {
        const raw = await sign(nonce);
        await broadcast(raw);
        return raw;
      } catch (error) {
        // A nonce another transaction holds is not ours to fill, and the count read ahead is behind.
        if (nonceTaken(error)) floor.forget();
        else givenBack.add(nonce);
        throw error;
      } finally {
        await filled;
      }
    },
    async reissue(nonce) {
      // Mined or replaced meanwhile: nothing left to fill.
      if (nonce >= (await chainCount())) await fillOrGiveBack(nonce);
    },
    fillAbandoned: singleFlight(async () => fillGivenBack(await chainCount())),
    readAhead: () => floor.begin(),
  };
}

/** `work`, run once at a time: callers while it runs share its promise. */
export function singleFlight<T>(work: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | undefined;
  return () =>
    (running ??= work().finally(() => {
      running = undefined;
    }));
}
