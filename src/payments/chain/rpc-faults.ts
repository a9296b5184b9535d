/**
 * Tells "the payment is bad" from "the chain could not be asked". The x402 facilitator turns an RPC
 * failure during verify or settle into an ordinary refusal reason (an unreachable node reads as an
 * invalid signature); calls made through `tracked` inside a `faultScope` record that the RPC failed,
 * so the caller can answer 503 `payment_unavailable` instead of 402.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

interface Scope {
  faulted: boolean;
}

const scopes = new AsyncLocalStorage<Scope>();

/** Runs `work`, reporting whether any `tracked` call inside it hit an RPC fault. */
export async function faultScope<T>(work: () => Promise<T>): Promise<{ value: T; faulted: boolean }> {
  const scope: Scope = { faulted: false };
  const value = await scopes.run(scope, work);
  return { value, faulted: scope.faulted };
}

/** Runs one RPC-backed call; a transport failure is recorded in the current scope and rethrown. */
export async function tracked<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (isRpcFault(error)) {
      const scope = scopes.getStore();
      if (scope) scope.faulted = true;
    }
    throw error;
  }
}

/** Failures to reach the chain or get an answer from its node (viem error names). */
const RPC_FAILURES = new Set([
  'HttpRequestError',
  'TimeoutError',
  'SocketClosedError',
  'WebSocketRequestError',
  'InternalRpcError',
  'LimitExceededRpcError',
  'ResourceUnavailableRpcError',
  'ResourceNotFoundRpcError',
  'MethodNotFoundRpcError',
  'MethodNotSupportedRpcError',
  'InvalidRequestRpcError',
  'ParseRpcError',
  'UnknownRpcError',
]);

/** Answers from the chain itself: a revert, a missing receipt. */
const CHAIN_ANSWERS = new Set([
  'ExecutionRevertedError',
  'ContractFunctionRevertedError',
  'ContractFunctionZeroDataError',
  'TransactionReceiptNotFoundError',
]);

/**
 * True when the error (or one of its causes) is a failure to ask the chain. A failure wins over an
 * answer: viem wraps a node's internal error during a call as a contract revert.
 */
export function isRpcFault(error: unknown): boolean {
  let answered = false;
  for (let current = error; current instanceof Error; current = current.cause) {
    if (RPC_FAILURES.has(current.name)) return true;
    if (CHAIN_ANSWERS.has(current.name)) answered = true;
  }
  return !answered;
}
