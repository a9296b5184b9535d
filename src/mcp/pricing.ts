/**
 * The free `pricing` tool's answer: every paid operation with its route,
 * tool, price and x402 payment terms, the free operations, and the 64-day certificate note.
 */
import { z } from 'zod';
import { freeOperations, paidOperations, usdToAtomic } from '../catalog.ts';
import { lifetimeNote } from '../checks/site-health/lifetime-note.ts';
import { lifetimeNoteSchema } from '../checks/site-health/result.ts';
import type { Config } from '../config.ts';

const paidEntrySchema = z.object({
  tool: z.string(),
  route: z.string().describe('HTTP route of the same check (GET with ?domain=).'),
  price_usd: z.string().describe('Decimal USD, e.g. "0.01".'),
  amount_atomic: z.string().describe("The same price in the asset's atomic units (USDC: 6 decimals)."),
  network: z.string().describe('CAIP-2 network, e.g. eip155:8453 (Base).'),
  asset: z.string().describe('Token contract address (USDC).'),
  pay_to: z.string().nullable().describe('Recipient address; null until one is configured.'),
});

export const pricingSchema = z.object({
  currency: z.literal('USD'),
  payment_protocol: z.literal('x402'),
  x402_version: z.literal(2),
  paid: z.array(paidEntrySchema),
  free: z.array(z.object({ tool: z.string(), route: z.string().nullable(), price_usd: z.literal('0') })),
  lifetime_note: lifetimeNoteSchema.omit({ applies: true, follows_ari_window: true, summary: true }),
});
export type Pricing = z.infer<typeof pricingSchema>;

/** The pricing answer for this deployment's payment configuration. */
export function buildPricing(config: Config): Pricing {
  const { network, asset, payTo } = config.x402;
  const {
    applies: _applies,
    follows_ari_window: _followsAri,
    summary: _summary,
    ...note
  } = lifetimeNote(false);
  return {
    currency: 'USD',
    payment_protocol: 'x402',
    x402_version: 2,
    paid: paidOperations.map((operation) => ({
      tool: operation.tool,
      route: operation.route,
      price_usd: operation.priceUsd,
      amount_atomic: usdToAtomic(operation.priceUsd),
      network,
      asset,
      pay_to: payTo ?? null,
    })),
    free: freeOperations.map((operation) => ({
      tool: operation.tool,
      route: operation.route,
      price_usd: '0',
    })),
    lifetime_note: note,
  };
}
