/**
 * The `_meta` key of the x402 MCP transport that carries a paid `tools/call`'s PaymentPayload: read
 * by the paid tools (src/mcp/paid-tool.ts) and, before any work, by the free-work limit
 * (src/http/ops/free-work.ts), for which a call carrying a payment is not free work.
 */
export const PAYMENT_META_KEY = 'x402/payment';
