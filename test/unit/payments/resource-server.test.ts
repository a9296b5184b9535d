/** Route payment requirements derived from the catalog, and the published output examples. */
import type { PaymentOption } from '@x402/core/http';
import { describe, expect, it } from 'vitest';
import { paidOperations } from '../../../src/catalog.ts';
import { loadConfig } from '../../../src/config.ts';
import { outputExampleFor } from '../../../src/payments/server/output-examples.ts';
import { CHECK_BUDGET_MS } from '../../../src/checks/check-budget.ts';
import { RECEIPT_WAIT_MS } from '../../../src/payments/facilitator/facilitator.ts';
import { MAX_TIMEOUT_SECONDS } from '../../../src/payments/exact-authorization.ts';
import { paymentRequirementsFor } from '../../../src/payments/server/resource-server.ts';
import {
  CLOCK_SKEW_ALLOWANCE_S,
  EXPIRY_MARGIN_MS,
  SETTLEMENT_DEADLINE_MS,
  SETTLEMENT_MAX_MS,
} from '../../../src/payments/facilitator/settlement.ts';

const PAY_TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const config = loadConfig({
  X402_FACILITATOR_URL: 'https://facilitator.example',
  X402_PAY_TO: PAY_TO,
  PUBLIC_BASE_URL: 'https://checks.example/',
});
const atomic = { v1_cert: '10000', v1_dns: '10000', v1_expiry: '10000', v1_site_health: '30000' };

describe('paymentRequirementsFor', () => {
  it.each(paidOperations.map((operation) => [operation.id, operation] as const))('%s', (id, operation) => {
    const route = paymentRequirementsFor(operation, config);
    const option = route.accepts as PaymentOption;
    expect(option).toEqual({
      scheme: 'exact',
      network: 'eip155:8453',
      payTo: PAY_TO,
      price: {
        amount: atomic[id],
        asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
        extra: { name: 'USD Coin', version: '2' },
      },
      maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
    });
    expect(route.resource).toBe(`https://checks.example${operation.route}`);
    expect(route.mimeType).toBe('application/json');
    expect(route.description).toBe(operation.summary);
    expect(route.extensions?.bazaar).toMatchObject({
      info: { input: { type: 'http', queryParams: { domain: 'example.com' } }, output: { type: 'json' } },
      schema: { properties: { input: { properties: { queryParams: { required: ['domain'] } } } } },
    });
  });

  it('gives the signer a window longer than a check, a receipt wait and the facilitator 6 s rule', () => {
    expect(MAX_TIMEOUT_SECONDS * 1000).toBeGreaterThan(CHECK_BUDGET_MS + 2 * RECEIPT_WAIT_MS + 6_000);
    expect(MAX_TIMEOUT_SECONDS).toBe(45);
  });

  it('lets an uncertain settlement run until the authorization it reconciles has provably expired', () => {
    expect(SETTLEMENT_DEADLINE_MS).toBeGreaterThanOrEqual(MAX_TIMEOUT_SECONDS * 1000 + EXPIRY_MARGIN_MS);
    expect(SETTLEMENT_MAX_MS).toBe(
      (MAX_TIMEOUT_SECONDS + CLOCK_SKEW_ALLOWANCE_S) * 1000 + EXPIRY_MARGIN_MS + 2_000,
    );
  });

  it('refuses to build requirements without a recipient', () => {
    const noPayTo = { ...config, x402: { ...config.x402, payTo: undefined } };
    for (const operation of paidOperations) {
      expect(() => paymentRequirementsFor(operation, noPayTo)).toThrow(/No payment recipient/);
    }
  });
});

describe('output examples', () => {
  it.each(paidOperations.map((operation) => [operation.id, operation] as const))(
    '%s validates against its result schema',
    (id, operation) => {
      const parsed = operation.output.safeParse(outputExampleFor(id));
      expect(parsed.error?.issues ?? []).toEqual([]);
    },
  );
});
