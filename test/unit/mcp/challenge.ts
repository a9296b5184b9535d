/** An x402 v2 PaymentRequired as a paid tool returns it, for the output-schema tests. */
export const CHALLENGE = {
  x402Version: 2,
  error: 'Payment required',
  resource: { url: 'mcp://tool/check_cert', mimeType: 'application/json' },
  accepts: [{ scheme: 'exact', network: 'eip155:8453', amount: '10000', extra: { name: 'USD Coin' } }],
  extensions: { bazaar: { info: {} } },
};
