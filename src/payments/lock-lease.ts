/** How long a shared in-flight lock is leased: the bound after which a lock left by a dead holder frees itself. */
import { CHECK_BUDGET_MS } from '../checks/check-budget.ts';
import { SETTLEMENT_MAX_MS } from './settlement.ts';

/** Time a paid call may take to verify its payment (a few RPC calls, each bounded). */
const VERIFY_ALLOWANCE_MS = 15_000;
/**
 * The longest a paid call holds its lock: verification, the check, and the longest settlement. A
 * lease left by an isolate or process that died expires after this.
 */
export const LEASE_MS = VERIFY_ALLOWANCE_MS + CHECK_BUDGET_MS + SETTLEMENT_MAX_MS;
