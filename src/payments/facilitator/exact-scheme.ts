/**
 * The x402 `exact` scheme for EIP-3009 payments, verified and settled in-process with an
 * authorization's window judged on the chain's clock, as the token contract will judge it. The
 * payment SDK's own facilitator scheme judges it on this machine's clock, which has no setting for
 * another: an instance whose clock ran ahead of the chain refused every good payment. Its parts that
 * do not depend on the clock (the EIP-712 types, ERC-6492 classification, signature verification,
 * the asset check) are the SDK's.
 *
 * Verify recovers an account's own signature in-process and simulates the transfer at once, one
 * round trip to the chain; only another kind of signature (a wallet contract's) has the payer's code
 * read first. Settle does not recover the signature again: verify did, moments before, and settle's
 * simulation of the transfer is the token contract's own check of it, asked beside the
 * transaction's preparation (`TwoStepWrite`), or prepared by verify already while the check ran,
 * where one process verifies and settles (`TwoStepWrite.ahead`); there the simulation leaves as
 * soon as the check is done (`settlementFollows`), before the settlement is recorded. The pure
 * checks (recipient, amount, window) are repeated, since the simulation would take any valid
 * signature.
 */
import type {
  FacilitatorContext,
  PaymentPayload,
  PaymentRequirements,
  SchemeNetworkFacilitator,
  SettleResponse,
  VerifyResponse,
} from '@x402/core/types';
import {
  authorizationTypes,
  classifyErc6492Payer,
  eip3009ABI,
  type FacilitatorEvmSigner,
  resolveDataSuffix,
  startAssetContractCheck,
  verifyTypedDataSignature,
} from '@x402/evm';
import { LRUCache } from 'lru-cache';
import {
  getAddress,
  isAddressEqual,
  type Log,
  parseAbi,
  parseErc6492Signature,
  parseEventLogs,
  parseSignature,
  recoverTypedDataAddress,
  zeroAddress,
} from 'viem';
import { CHAIN_TIME_MAX_AGE_MS, type ChainClock } from '../chain/chain-clock.ts';
import { SETTLEMENT_MAX_MS } from './settlement.ts';
import {
  type ExactAuthorization,
  exactAuthorizationOf,
  WINDOW_REFUSALS,
  windowRefusal,
} from '../exact-authorization.ts';

/** The payment SDK's reasons, spelled as it spells them, so clients read one vocabulary. */
export const REFUSAL = {
  unsupportedPayload: 'unsupported_payload_type',
  scheme: 'invalid_exact_evm_scheme',
  network: 'invalid_exact_evm_network_mismatch',
  eip712Domain: 'invalid_exact_evm_missing_eip712_domain',
  factoryNotAllowed: 'eip6492_factory_not_allowed',
  signature: 'invalid_exact_evm_signature',
  recipient: 'invalid_exact_evm_recipient_mismatch',
  value: 'invalid_exact_evm_payload_authorization_value_mismatch',
  notSupported: 'invalid_exact_evm_eip3009_not_supported',
  nonceUsed: 'invalid_exact_evm_nonce_already_used',
  tokenName: 'invalid_exact_evm_token_name_mismatch',
  tokenVersion: 'invalid_exact_evm_token_version_mismatch',
  balance: 'invalid_exact_evm_insufficient_balance',
  simulation: 'invalid_exact_evm_transaction_simulation_failed',
  transactionFailed: 'invalid_exact_evm_transaction_failed',
  transferEvent: 'invalid_exact_evm_transfer_event_mismatch',
  pending: 'settlement_pending',
} as const;

const TRANSFER_EVENT = parseAbi(['event Transfer(address indexed from, address indexed to, uint256 value)']);
/** What the diagnosis of a failed simulation reads (the SDK's `eip3009ABI` has them all). */
const DIAGNOSIS_ABI = eip3009ABI as readonly unknown[];

/** A payment read and checked as far as it can be without the chain. */
interface Screened {
  authorization: ExactAuthorization;
  asset: `0x${string}`;
  payer: `0x${string}`;
}

/** The contract call settle makes (`transferWithAuthorization`), as the signer's `writeContract` takes it. */
export type ContractWrite = Parameters<FacilitatorEvmSigner['writeContract']>[0];

/**
 * A contract call in two steps: prepared (its fees and gas, for which the node runs it), then sent
 * at the next account nonce. Settle prepares while it simulates, and sends only what the simulation
 * took; without it settle simulates, then `writeContract` prepares and sends.
 */
export interface TwoStepWrite {
  prepareWrite(args: ContractWrite): Promise<PreparedSend>;
  /**
   * A prepared send follows once the simulation answers: the settler's account nonce count is read
   * now, beside the simulation, rather than after it.
   */
  expectSend(): void;
  /**
   * Whether verify prepares the transfer it took, for the settle to come: true where the process
   * that verifies also settles (on a Worker the isolate verifies and the settler object settles).
   */
  ahead?: boolean;
}

/** Sends the prepared transaction at the next account nonce; resolves with its hash. */
type PreparedSend = () => Promise<`0x${string}`>;

/**
 * How long a transfer prepared by verify is used by its settle: its fees were read then, and two
 * Base blocks cannot raise the base fee past viem's margin (`baseFeeMultiplier`, 1.2). A settle after
 * that prepares afresh.
 */
const PREPARED_AHEAD_TTL_MS = 4_000;
/**
 * How long after verify the preparation begins: once the check's requests have left (within a few
 * milliseconds), so that it does not hold them back on the one thread (measured in bench/README.md).
 */
export const PREPARE_AHEAD_DELAY_MS = 25;
/**
 * How long a simulation begun as the check finished (`settlementFollows`) stands in for settle's
 * own: the settlement's record is written in between, a few milliseconds. A settle after that
 * simulates afresh, so the token's answer is never older than this at the send.
 */
export const SIMULATED_AHEAD_MS = 1_000;

/**
 * A transfer verify is preparing: the call, its preparation begun on the first ask, and the
 * simulation begun once the check was done.
 */
interface PreparedAhead {
  screened: Screened;
  write: ContractWrite;
  begin: () => Promise<PreparedSend>;
  simulated?: { at: number; takes: Promise<boolean> };
}

/** What settle takes of the work begun ahead: the preparation, and a simulation young enough. */
interface TakenAhead {
  prepared: Promise<PreparedSend>;
  simulation?: Promise<boolean>;
}

export class ChainTimedExactScheme implements SchemeNetworkFacilitator {
  readonly scheme = 'exact';
  readonly caipFamily = 'eip155:*';

  private readonly signer: FacilitatorEvmSigner;
  private readonly clock: Pick<ChainClock, 'now' | 'refresh'>;
  /** Transactions sent whose receipt did not come, by authorization key. */
  private readonly awaitingReceipt = new LRUCache<string, `0x${string}`>({
    max: 1_024,
    ttl: SETTLEMENT_MAX_MS,
  });

  private readonly write: TwoStepWrite | undefined;
  /** Transfers verify prepared (`TwoStepWrite.ahead`), by authorization key, until their settle takes them. */
  private readonly preparedAhead = new LRUCache<string, PreparedAhead>({
    max: 1_024,
    ttl: PREPARED_AHEAD_TTL_MS,
  });

  constructor(
    signer: FacilitatorEvmSigner,
    clock: Pick<ChainClock, 'now' | 'refresh'>,
    write?: TwoStepWrite,
  ) {
    this.signer = signer;
    this.clock = clock;
    this.write = write;
    // Read before the first payment is judged by it.
    void clock.refresh(0);
  }

  getExtra(): undefined {
    return undefined;
  }

  getSigners(): string[] {
    return [...this.signer.getAddresses()];
  }

  async verify(
    payload: PaymentPayload,
    requirements: PaymentRequirements,
    context?: FacilitatorContext,
  ): Promise<VerifyResponse> {
    const screened = screen(payload, requirements);
    if ('refusal' in screened) return refused(screened.refusal, screened.payer);
    const { authorization, asset, payer } = screened;
    const assetCheck = startAssetContractCheck(this.signer, requirements.network, asset);
    // An account's own signature is recovered here, and the transfer is simulated at once: one
    // round trip to the chain. A wallet contract's (ERC-1271, ERC-6492) needs its code read first.
    const byAccount = await signedByPayerAccount(screened, requirements);
    const terms = termsRefusal(authorization, requirements) ?? this.windowRefusal(authorization);
    const simulation = byAccount && !terms ? this.simulates(screened) : undefined;
    const signed = byAccount ? undefined : await this.signatureRefusal(screened, requirements);
    if (signed) return refused(signed, payer);
    if (terms) return refused(terms, payer);
    const assetProblem = await assetCheck.await();
    if (assetProblem) return refused(assetProblem, payer);
    const simulated = await this.simulationRefusal(screened, requirements, simulation);
    if (simulated) return refused(simulated, payer);
    if (this.write?.ahead) await this.prepareAhead(screened, payload, requirements, context);
    return { isValid: true, payer };
  }

  /**
   * Prepares the transfer verify took (`eth_fillTransaction`) while the check runs, so that settle,
   * once the check is done, only simulates and sends; a settle that comes first begins it.
   */
  private async prepareAhead(
    screened: Screened,
    payload: PaymentPayload,
    requirements: PaymentRequirements,
    context: FacilitatorContext | undefined,
  ): Promise<void> {
    const write = await transferWrite(screened, payload, requirements, context).catch(() => undefined);
    if (!write || !this.write) return;
    const { prepareWrite } = this.write;
    let begun: Promise<PreparedSend> | undefined;
    const begin = () => {
      if (!begun) {
        begun = prepareWrite(write);
        begun.catch(() => {});
      }
      return begun;
    };
    setTimeout(begin, PREPARE_AHEAD_DELAY_MS);
    this.preparedAhead.set(screened.authorization.key, { screened, write, begin });
  }

  /**
   * The check paid for by the authorization `key` is done and its settlement follows: the
   * transfer's simulation and the read of the nonce count leave now, while the settlement is
   * recorded, rather than once settle is called. Only for a transfer verify prepared.
   */
  settlementFollows(key: string): void {
    const ahead = this.preparedAhead.get(key);
    if (!ahead || ahead.simulated) return;
    ahead.simulated = { at: performance.now(), takes: this.simulates(ahead.screened) };
    this.write?.expectSend();
  }

  /**
   * The preparation verify began for exactly `write`, taken once, with the simulation begun when
   * the check was done if it is young enough; undefined when there is none or it is stale.
   */
  private takePreparedAhead(key: string, write: ContractWrite): TakenAhead | undefined {
    const ahead = this.preparedAhead.get(key);
    this.preparedAhead.delete(key);
    if (!ahead || !sameWrite(ahead.write, write) || !this.write) return undefined;
    const { prepareWrite } = this.write;
    // A preparation that failed (the node did not answer then) is asked again now.
    const prepared = ahead.begin().catch(() => prepareWrite(write));
    const { simulated } = ahead;
    if (!simulated || performance.now() - simulated.at > SIMULATED_AHEAD_MS) return { prepared };
    // Only a transfer the token took stands: a refusal, or a node that did not answer, is asked
    // again within settle, where a failure to reach the chain is told from a refusal.
    return { prepared, simulation: simulated.takes.then((took) => took || this.simulates(ahead.screened)) };
  }

  async settle(
    payload: PaymentPayload,
    requirements: PaymentRequirements,
    context?: FacilitatorContext,
  ): Promise<SettleResponse> {
    const network = payload.accepted.network;
    const screened = screen(payload, requirements);
    if ('refusal' in screened) return failed(network, screened.refusal, screened.payer);
    const { authorization, payer } = screened;
    // The resource server settles again once when the receipt did not come: that is a wait for the
    // transaction already sent, never a second one.
    const sent = this.awaitingReceipt.get(authorization.key);
    if (sent) {
      this.awaitingReceipt.delete(authorization.key);
      return this.receiptOf(screened, network, sent);
    }
    const terms = termsRefusal(authorization, requirements) ?? this.windowRefusal(authorization);
    if (terms) return failed(network, terms, payer);
    let transaction: `0x${string}`;
    try {
      const write = await transferWrite(screened, payload, requirements, context);
      // Prepared by verify, or while the transfer is simulated (one round trip); sent only once the
      // simulation took it. The simulation leaves first: the send waits for its answer.
      const ahead = this.takePreparedAhead(authorization.key, write);
      const simulation = ahead?.simulation ?? this.simulates(screened);
      const prepared = ahead?.prepared ?? this.write?.prepareWrite(write);
      prepared?.catch(() => {});
      if (!ahead?.simulation) this.write?.expectSend();
      const refusal = await this.simulationRefusal(screened, requirements, simulation);
      if (refusal) return failed(network, refusal, payer);
      transaction = prepared ? await (await prepared)() : await this.signer.writeContract(write);
    } catch (error) {
      return { ...failed(network, transferErrorReason(error), payer), errorMessage: messageOf(error) };
    }
    return this.receiptOf(screened, network, transaction);
  }

  /** The settlement `transaction` made: paid once its receipt shows the transfer, pending while it does not come. */
  private async receiptOf(
    { authorization, asset, payer }: Screened,
    network: PaymentPayload['accepted']['network'],
    transaction: `0x${string}`,
  ): Promise<SettleResponse> {
    let receipt: Awaited<ReturnType<FacilitatorEvmSigner['waitForTransactionReceipt']>>;
    try {
      receipt = await this.signer.waitForTransactionReceipt({ hash: transaction });
    } catch (error) {
      this.awaitingReceipt.set(authorization.key, transaction);
      return { ...failed(network, REFUSAL.pending, payer), transaction, errorMessage: messageOf(error) };
    }
    if (receipt.status !== 'success')
      return { ...failed(network, REFUSAL.transactionFailed, payer), transaction };
    if (receipt.logs && !transferred(receipt.logs, asset, authorization)) {
      return { ...failed(network, REFUSAL.transferEvent, payer), transaction };
    }
    return { success: true, transaction, network, payer };
  }

  /** Why the signature does not authorize this transfer, or undefined when it does. */
  private async signatureRefusal(
    screened: Screened,
    requirements: PaymentRequirements,
  ): Promise<string | undefined> {
    const { signature, from } = screened.authorization;
    const classified = await classifyErc6492Payer(this.signer, signature as `0x${string}`, from);
    if (classified.isCounterfactual) return REFUSAL.factoryNotAllowed;
    const valid = await verifyTypedDataSignature(this.signer, {
      address: screened.payer,
      ...typedDataOf(screened, requirements),
      signature: classified.innerSignature,
    });
    return valid ? undefined : REFUSAL.signature;
  }

  /**
   * The window judged at the chain's now, as last read (first as the scheme is made, then in the
   * background once older than `CHAIN_TIME_MAX_AGE_MS`). Never awaited: on a
   * Worker, a read begun by another request may never settle in this one.
   */
  private windowRefusal(authorization: ExactAuthorization): string | undefined {
    void this.clock.refresh(CHAIN_TIME_MAX_AGE_MS);
    return windowRefusal(authorization, this.clock.now()) ?? undefined;
  }

  /**
   * Why the token would refuse the transfer now (an `eth_call` of it, or the one `simulation`
   * already asked), or undefined when it would not.
   */
  private async simulationRefusal(
    screened: Screened,
    requirements: PaymentRequirements,
    simulation = this.simulates(screened),
  ): Promise<string | undefined> {
    if (await simulation) return undefined;
    const { authorization, asset, payer } = screened;
    return diagnose(this.signer, asset, payer, authorization, requirements);
  }

  /** Whether the token takes the transfer now (an `eth_call` of it). */
  private async simulates({ authorization, asset }: Screened): Promise<boolean> {
    try {
      await this.signer.readContract({
        address: asset,
        abi: eip3009ABI,
        functionName: 'transferWithAuthorization',
        args: transferArgs(authorization),
      });
      return true;
    } catch {
      return false;
    }
  }
}

/** The `transferWithAuthorization` call that settles the payment. */
async function transferWrite(
  { authorization, asset }: Screened,
  payload: PaymentPayload,
  requirements: PaymentRequirements,
  context: FacilitatorContext | undefined,
): Promise<ContractWrite> {
  const dataSuffix = await resolveDataSuffix(context, {
    paymentPayload: payload,
    paymentRequirements: requirements,
  });
  return {
    address: asset,
    abi: eip3009ABI,
    functionName: 'transferWithAuthorization',
    args: transferArgs(authorization),
    ...(dataSuffix ? { dataSuffix } : {}),
  };
}

/** Whether two transfer calls send the same bytes to the same contract. */
function sameWrite(a: ContractWrite, b: ContractWrite): boolean {
  return (
    isAddressEqual(a.address, b.address) &&
    a.dataSuffix === b.dataSuffix &&
    a.args?.length === b.args?.length &&
    (a.args ?? []).every((arg, index) => arg === b.args?.[index])
  );
}

/** The EIP-712 data the payer signed: the token's domain and the authorization. */
function typedDataOf({ authorization, asset }: Screened, requirements: PaymentRequirements) {
  const { name, version } = requirements.extra as { name: string; version: string };
  const { from, to, value, validAfter, validBefore, nonce } = authorization;
  return {
    types: authorizationTypes,
    primaryType: 'TransferWithAuthorization' as const,
    domain: { name, version, chainId: chainIdOf(requirements.network), verifyingContract: asset },
    message: { from, to, value, validAfter, validBefore, nonce },
  };
}

/** Whether the signature is the payer account's own: 65 bytes that recover to it, no code to read. */
async function signedByPayerAccount(screened: Screened, requirements: PaymentRequirements): Promise<boolean> {
  const signature = screened.authorization.signature as `0x${string}`;
  if (signature.length !== 132) return false;
  try {
    const signer = await recoverTypedDataAddress({ ...typedDataOf(screened, requirements), signature });
    return isAddressEqual(signer, screened.payer);
  } catch {
    return false;
  }
}

/**
 * `transferWithAuthorization`'s arguments: with v, r and s for an account's 65-byte signature,
 * with the signature's bytes (ERC-1271) otherwise; an ERC-6492 wrapper of a wallet to deploy
 * unwrapped, as the payment SDK's `classifyErc6492Payer` reads it.
 */
function transferArgs(authorization: ExactAuthorization): readonly unknown[] {
  const wrapped = parseErc6492Signature(authorization.signature as `0x${string}`);
  const deploys = wrapped.address && wrapped.data && !isAddressEqual(wrapped.address, zeroAddress);
  const innerSignature = deploys ? wrapped.signature : (authorization.signature as `0x${string}`);
  const { from, to, value, validAfter, validBefore, nonce } = authorization;
  const fields = [getAddress(from), getAddress(to), value, validAfter, validBefore, nonce];
  if (innerSignature.length !== 132) return [...fields, innerSignature];
  const { v, yParity, r, s } = parseSignature(innerSignature);
  return [...fields, v ?? BigInt(yParity + 27), r, s];
}

/** The payment read, and the checks that need neither the chain nor the signature. */
function screen(
  payload: PaymentPayload,
  requirements: PaymentRequirements,
): Screened | { refusal: string; payer?: `0x${string}` } {
  const authorization = exactAuthorizationOf(payload);
  if (!authorization) return { refusal: REFUSAL.unsupportedPayload };
  const payer = authorization.from;
  if (payload.accepted.scheme !== 'exact' || requirements.scheme !== 'exact') {
    return { refusal: REFUSAL.scheme, payer };
  }
  const { name, version } = (requirements.extra ?? {}) as { name?: unknown; version?: unknown };
  if (typeof name !== 'string' || !name || typeof version !== 'string' || !version) {
    return { refusal: REFUSAL.eip712Domain, payer };
  }
  if (payload.accepted.network !== requirements.network) return { refusal: REFUSAL.network, payer };
  return { authorization, asset: getAddress(requirements.asset), payer };
}

/** The recipient and the amount against the requirements. */
function termsRefusal(
  authorization: ExactAuthorization,
  requirements: PaymentRequirements,
): string | undefined {
  if (!isAddressEqual(authorization.to, getAddress(requirements.payTo))) return REFUSAL.recipient;
  if (authorization.value !== BigInt(requirements.amount)) return REFUSAL.value;
  return undefined;
}

/** Why the token refused a transfer it was asked to simulate, read from the token's own state. */
async function diagnose(
  signer: FacilitatorEvmSigner,
  asset: `0x${string}`,
  payer: `0x${string}`,
  { nonce }: ExactAuthorization,
  requirements: PaymentRequirements,
): Promise<string> {
  const read = (functionName: string, args?: readonly unknown[]) =>
    signer.readContract({ address: asset, abi: DIAGNOSIS_ABI, functionName, ...(args ? { args } : {}) });
  const [used, name, version, balance] = await Promise.allSettled([
    read('authorizationState', [payer, nonce]),
    read('name'),
    read('version'),
    read('balanceOf', [payer]),
  ]);
  const extra = requirements.extra as { name: string; version: string };
  if (used.status === 'rejected') return REFUSAL.notSupported;
  if (used.value === true) return REFUSAL.nonceUsed;
  if (name.status === 'fulfilled' && name.value !== extra.name) return REFUSAL.tokenName;
  if (version.status === 'fulfilled' && version.value !== extra.version) return REFUSAL.tokenVersion;
  if (balance.status === 'fulfilled' && (balance.value as bigint) < BigInt(requirements.amount)) {
    return REFUSAL.balance;
  }
  return REFUSAL.simulation;
}

/** Whether the receipt's logs show the token moving the authorized amount from the payer to the recipient. */
function transferred(
  logs: readonly Log[],
  asset: `0x${string}`,
  { from, to, value }: ExactAuthorization,
): boolean {
  return parseEventLogs({
    abi: TRANSFER_EVENT,
    eventName: 'Transfer',
    logs: logs.filter((log) => isAddressEqual(log.address, asset)),
  }).some(
    ({ args }) => isAddressEqual(args.from, from) && isAddressEqual(args.to, to) && args.value === value,
  );
}

/** The refusal a failed send names, read from the node's message as the payment SDK reads it. */
function transferErrorReason(error: unknown): string {
  const message = messageOf(error);
  if (/authorization.*(expired|valid before)|AuthorizationExpired/i.test(message)) {
    return WINDOW_REFUSALS.expired;
  }
  if (/authorization.*not.*valid|AuthorizationNotYetValid/i.test(message)) {
    return WINDOW_REFUSALS.notYetValid;
  }
  if (/authorization.*used|AuthorizationAlreadyUsed|AuthorizationUsedOrCanceled/i.test(message)) {
    return REFUSAL.nonceUsed;
  }
  if (/transfer.*exceeds.*balance|insufficient.*balance|ERC20InsufficientBalance/i.test(message)) {
    return REFUSAL.balance;
  }
  if (/invalid.*signature|SignerMismatch|InvalidSignatureV|InvalidSignatureS/i.test(message)) {
    return REFUSAL.signature;
  }
  return REFUSAL.transactionFailed;
}

/** `eip155:<id>`'s chain id. */
function chainIdOf(network: string): number {
  return Number(network.slice(network.indexOf(':') + 1));
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

const refused = (invalidReason: string, payer?: `0x${string}`): VerifyResponse => ({
  isValid: false,
  invalidReason,
  ...(payer ? { payer } : {}),
});

const failed = (
  network: PaymentPayload['accepted']['network'],
  errorReason: string,
  payer?: string,
): SettleResponse => ({
  success: false,
  errorReason,
  transaction: '',
  network,
  ...(payer ? { payer } : {}),
});
