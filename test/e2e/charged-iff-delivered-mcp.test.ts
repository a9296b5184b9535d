/**
 * Charged if and only if delivered, over MCP with the official SDK client and the x402 payment in
 * `_meta`: the same cases as over HTTP (charged-iff-delivered.ts), on the real service process in
 * self-settlement mode behind an RPC fault proxy.
 */
import { describeChargedIffDelivered } from './charged-iff-delivered.ts';

describeChargedIffDelivered(
  'mcp',
  'MCP: the payer is charged the price if and only if the tool result was delivered',
);
