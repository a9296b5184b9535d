/**
 * Charged if and only if delivered, over MCP 2026-07-28 with the official 2.x client pinned to that
 * revision and the x402 payment in `_meta`: the same cases as over HTTP (charged-iff-delivered.ts),
 * on the real service process in self-settlement mode behind an RPC fault proxy.
 */
import { describeChargedIffDelivered } from './charged-iff-delivered.ts';

describeChargedIffDelivered(
  'mcp-2026',
  'MCP 2026-07-28: the payer is charged the price if and only if the tool result was delivered',
);
