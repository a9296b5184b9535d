/**
 * The wallet as the account on one Node instance (SQLite): the forgetful agent's journey with the
 * official clients (`sign-in-journey.ts`), a second wallet that sees none of it, and the proofs that
 * must be refused. Token and secret rotations are here too.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { PaymentRequired } from '@x402/core/types';
import { createSIWxPayload, type SIWxExtension } from '@x402/extensions/sign-in-with-x';
import { createTestClient, http } from 'viem';
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseChainAt } from '../../src/payments/chain/base-chain.ts';
import { SIGN_IN_WITH_X } from '../../src/watches/sign-in.ts';
import {
  buyPullOnly,
  challengeOf,
  expectRefusals,
  expectSignInSpentByItsPayment,
  extendBySignIn,
  listed,
  proofFor,
  signingFetchFor,
} from '../world/sign-in-journey.ts';
import { watchPriceAtomic } from '../../src/watches/pricing.ts';
import { clientFor, payingFetchFor } from '../world/payer-client.ts';
import { startWatchService, type WatchService } from '../world/watch-service.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../world/webhook-receiver.ts';

let service: WatchService;
let receiver: WebhookReceiver;

beforeAll(async () => {
  [service, receiver] = await Promise.all([
    startWatchService({ WATCH_DAY_S: '864' }),
    startWebhookReceiver(),
  ]);
}, 60_000);
afterAll(async () => {
  await Promise.all([service?.close(), receiver?.close()]);
});

const FUNDS = 10_000_000n;

/** Waits on the store until the watch has `count` events (no sleep proves an arrival). */
async function eventsOf(watchId: string, count: number) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const events = await service.store.events(watchId, 0, 100);
    if (events.length >= count) return events;
    if (Date.now() > deadline) throw new Error(`watch ${watchId} has ${events.length} events, not ${count}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the paying wallet as the account', () => {
  it('answers a management route without credentials with the auth-only 402', async () => {
    const { required, extension } = await challengeOf(new URL('/v1/watches', service.url));
    expect(required.x402Version).toBe(2);
    expect(extension.info).toMatchObject({ domain: service.url.host, version: '1' });
    expect(extension.info.nonce).toMatch(/^[0-9a-f]{66}$/);
    expect(extension.supportedChains).toEqual([{ chainId: 'eip155:8453', type: 'eip191' }]);
    const other = await challengeOf(new URL('/v1/watches/wat_unknown', service.url));
    expect(other.extension.info.nonce).not.toBe(extension.info.nonce);
  });

  it('takes a forgetful agent from purchase to cancellation by its wallet alone', async () => {
    const [agent, stranger] = await Promise.all([service.newPayer(FUNDS), service.newPayer(0n)]);
    const bought = await buyPullOnly(service.url, agent, 'example.com');
    // The agent forgets the 201; an alert is raised while it is away.
    await eventsOf(bought.watch_id, 1);
    service.site.probeOk = false;
    const events = await eventsOf(bought.watch_id, 2);
    service.site.probeOk = true;

    const signed = signingFetchFor(agent);
    const [mine] = await listed(signed, service.url);
    expect(mine).toMatchObject({ watch_id: bought.watch_id, domain: 'example.com', status: 'active' });
    const statusUrl = new URL(`/v1/watches/${bought.watch_id}?since=${events[0]!.id}`, service.url);
    const status = await signed(statusUrl);
    const body = (await status.json()) as Record<string, unknown> & {
      events: { id: string; type: string }[];
    };
    expect(status.status).toBe(200);
    expect(body.events[0]).toMatchObject({ id: events[1]!.id, type: 'watch.alert' });
    expect(body).not.toHaveProperty('token');
    expect(body).not.toHaveProperty('webhook_secret');

    // A second wallet sees none of it: an empty list, and the watch is an unknown id.
    const strangers = signingFetchFor(stranger);
    expect(await listed(strangers, service.url)).toEqual([]);
    const foreign = await strangers(new URL(`/v1/watches/${bought.watch_id}`, service.url));
    expect(foreign.status).toBe(404);
    const foreignCancel = await strangers(new URL(`/v1/watches/${bought.watch_id}`, service.url), {
      method: 'DELETE',
    });
    expect(foreignCancel.status).toBe(404);

    // A new token only through the explicit call: the old one stops working.
    const rotated = await signed(new URL(`/v1/watches/${bought.watch_id}/rotate-token`, service.url), {
      method: 'POST',
    });
    const { token } = (await rotated.json()) as { token: string };
    expect(rotated.status).toBe(200);
    expect(token).not.toBe(bought.token);
    const byOld = await fetch(new URL(`/v1/watches/${bought.watch_id}`, service.url), {
      headers: { authorization: `Bearer ${bought.token}` },
    });
    expect(byOld.status).toBe(404);
    const byNew = await fetch(new URL(`/v1/watches/${bought.watch_id}`, service.url), {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(byNew.status).toBe(200);

    // It extends the watch, paying with the wallet it signs in with. One sign-in serves both
    // requests of @x402/fetch: the unpaid one is answered with the payment's challenge and leaves
    // the nonce unspent; the paid retry spends it.
    const beforeExtension = await service.chain.balanceOf(agent.address);
    const challengeUrl = new URL(`/v1/watches/${bought.watch_id}`, service.url);
    const extended = await extendBySignIn(service.url, agent, bought.watch_id, 3);
    expect(extended.status, JSON.stringify(extended.body)).toBe(200);
    expect(extended.body).toMatchObject({ days: 5, status: 'active' });
    expect(await service.chain.balanceOf(agent.address)).toBe(
      beforeExtension - BigInt(watchPriceAtomic('0.10', 3)),
    );
    expect(extended.paid).toEqual([false, true]);
    // Spent by the paid call: the same proof once more is refused before any other work.
    const spent = await fetch(challengeUrl, { headers: { [SIGN_IN_WITH_X]: extended.proof } });
    expect(spent.status).toBe(401);
    expect(await spent.json()).toMatchObject({ code: 'invalid_sign_in', detail: /already used/ });

    const cancelled = await signed(new URL(`/v1/watches/${bought.watch_id}`, service.url), {
      method: 'DELETE',
    });
    expect(cancelled.status).toBe(200);
    expect(await cancelled.json()).toMatchObject({ status: 'cancelled' });
  });

  it('spends a sign-in on a paid extension for the payment taken alone: a refused payment leaves it, a lost answer is fetched again', async () => {
    const agent = await service.newPayer(FUNDS);
    const bought = await buyPullOnly(service.url, agent, 'example.com');
    await expectSignInSpentByItsPayment({
      base: service.url,
      payer: agent,
      watchId: bought.watch_id,
      balanceOf: (address) => service.chain.balanceOf(address),
      price: (days) => BigInt(watchPriceAtomic('0.10', days)),
    });
  });

  it('refuses an expired, replayed, foreign-origin, foreign-chain or forged proof with 401', async () => {
    const [owner, other] = await Promise.all([service.newPayer(0n), service.newPayer(0n)]);
    await expectRefusals(new URL('/v1/watches', service.url), owner, other);
  });

  it('refuses a malformed proof with 401 before any other work', async () => {
    for (const proof of ['not base64!', Buffer.from('{"a":1}').toString('base64'), 'A'.repeat(9_000)]) {
      const res = await fetch(new URL('/v1/watches/wat_x', service.url), {
        headers: { [SIGN_IN_WITH_X]: proof },
      });
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ code: 'invalid_sign_in' });
    }
  });

  it('refuses a cursor it did not give out', async () => {
    const payer = await service.newPayer(0n);
    const url = new URL('/v1/watches?cursor=nonsense', service.url);
    const res = await fetch(url, { headers: { [SIGN_IN_WITH_X]: await proofFor(url, payer) } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'invalid_cursor' });
  });

  it('rotates a webhook secret: watch.secret_rotated is signed with the old one, later events with the new', async () => {
    const payer = await service.newPayer(FUNDS);
    const res = await payingFetchFor(payer)(new URL('/v1/watches', service.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ domain: 'example.com', days: 2, webhook_url: `${receiver.url.origin}/hooks` }),
    });
    const bought = (await res.json()) as { watch_id: string; token: string; webhook_secret: string };
    expect(res.status).toBe(201);
    receiver.secret = bought.webhook_secret;
    const mine = (type: string) => (event: { type: string; id: string }) =>
      event.type === type && event.id.startsWith(`evt_${bought.watch_id.slice(4)}_`);
    expect((await receiver.next(mine('watch.created'))).verified).toBe(true);

    const pullOnly = await buyPullOnly(service.url, payer, 'example.com');
    const refused = await fetch(new URL(`/v1/watches/${pullOnly.watch_id}/rotate-secret`, service.url), {
      method: 'POST',
      headers: { authorization: `Bearer ${pullOnly.token}` },
    });
    expect(refused.status).toBe(409);

    const rotated = await fetch(new URL(`/v1/watches/${bought.watch_id}/rotate-secret`, service.url), {
      method: 'POST',
      headers: { authorization: `Bearer ${bought.token}` },
    });
    const { webhook_secret: secret } = (await rotated.json()) as { webhook_secret: string };
    expect(rotated.status).toBe(200);
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(bought.webhook_secret);
    expect((await receiver.next(mine('watch.secret_rotated'))).verified).toBe(true);

    // The status answer, by token or wallet, never carries a secret.
    const status = await signingFetchFor(payer)(new URL(`/v1/watches/${bought.watch_id}`, service.url));
    expect(JSON.stringify(await status.json())).not.toContain('whsec_');

    receiver.secret = secret;
    service.site.probeOk = false;
    try {
      expect((await receiver.next(mine('watch.alert'))).verified).toBe(true);
    } finally {
      service.site.probeOk = true;
    }
  });

  it('signs in over MCP with the proof in _meta["x402/sign-in-with-x"]', async () => {
    const payer = await service.newPayer(FUNDS);
    const bought = await buyPullOnly(service.url, payer, 'example.com');
    const client = new Client({ name: 'sign-in', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', service.url)));
    try {
      const signedCall = async (name: string, args: Record<string, unknown>) => {
        const asked = await client.callTool({ name, arguments: args });
        expect(asked.isError).toBe(true);
        const required = asked.structuredContent as PaymentRequired;
        expect(required.accepts).toEqual([]);
        const ext = required.extensions!['sign-in-with-x'] as SIWxExtension;
        const proof = await createSIWxPayload(
          { ...ext.info, ...ext.supportedChains[0]! },
          payer,
          service.url,
        );
        return client.callTool({ name, arguments: args, _meta: { 'x402/sign-in-with-x': proof } });
      };
      const listedByTool = await signedCall('watch_list', {});
      expect(listedByTool.isError).toBeFalsy();
      expect(listedByTool.structuredContent).toMatchObject({ watches: [{ watch_id: bought.watch_id }] });
      const status = await signedCall('watch_status', { watch_id: bought.watch_id });
      expect(status.structuredContent).toMatchObject({ watch_id: bought.watch_id, status: 'active' });
      const rotated = await signedCall('watch_rotate_token', { watch_id: bought.watch_id });
      const { token } = rotated.structuredContent as { token: string };
      const cancelled = await client.callTool({
        name: 'watch_cancel',
        arguments: { watch_id: bought.watch_id, token },
      });
      expect(cancelled.structuredContent).toMatchObject({ status: 'cancelled' });
      const forged = await client.callTool({
        name: 'watch_list',
        arguments: {},
        _meta: { 'x402/sign-in-with-x': 'bm90IGEgcHJvb2Y=' },
      });
      expect(forged.isError).toBe(true);
      expect(forged.structuredContent).toMatchObject({ code: 'invalid_sign_in' });
    } finally {
      await client.close();
    }
  });

  it('extends over MCP by token and by wallet sign-in, each paid once; a wrong days is refused uncharged', async () => {
    const payer = await service.newPayer(FUNDS);
    const bought = await buyPullOnly(service.url, payer, 'example.com');
    const afterPurchase = await service.chain.balanceOf(payer.address);
    const client = new Client({ name: 'extend', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', service.url)));
    const extend = (args: Record<string, unknown>, meta?: Record<string, unknown>) =>
      client.callTool({
        name: 'watch_extend',
        arguments: { watch_id: bought.watch_id, ...args },
        _meta: meta,
      });
    /** A fresh sign-in of `payer` over the auth-only challenge (a proof is accepted once). */
    const signIn = async () => {
      const asked = await extend({ days: 1 });
      const ext = (asked.structuredContent as PaymentRequired).extensions!['sign-in-with-x'] as SIWxExtension;
      return createSIWxPayload({ ...ext.info, ...ext.supportedChains[0]! }, payer, service.url);
    };
    /** Extends by `days`, the payment signed over the challenge the same credentials get. */
    const paidExtension = async (
      days: number,
      credentials: () => Promise<{ args: Record<string, unknown>; meta: Record<string, unknown> }>,
    ) => {
      const unpaid = await credentials().then(({ args, meta }) => extend({ ...args, days }, meta));
      expect(unpaid.isError).toBe(true);
      const required = unpaid.structuredContent as PaymentRequired;
      expect(required.accepts[0]?.amount).toBe(watchPriceAtomic('0.10', days));
      expect(required.extensions).toHaveProperty('payment-identifier');
      const payment = await clientFor(payer).createPaymentPayload(required);
      const other = await credentials().then(({ args, meta }) =>
        extend({ ...args, days: days + 1 }, { ...meta, 'x402/payment': payment }),
      );
      expect(other).toMatchObject({
        isError: true,
        structuredContent: { error: expect.stringMatching(/^resource_mismatch: /) },
      });
      return credentials().then(({ args, meta }) =>
        extend({ ...args, days }, { ...meta, 'x402/payment': payment }),
      );
    };
    try {
      for (const days of [0, 301, '3', null]) {
        const refused = await extend({ token: bought.token, days });
        expect(refused).toMatchObject({ isError: true, structuredContent: { code: 'invalid_days' } });
      }
      expect(await service.chain.balanceOf(payer.address)).toBe(afterPurchase);

      const byToken = await paidExtension(3, async () => ({ args: { token: bought.token }, meta: {} }));
      expect(byToken.isError).toBeFalsy();
      expect(byToken.structuredContent).toMatchObject({ days: 5, status: 'active' });
      const afterToken = afterPurchase - BigInt(watchPriceAtomic('0.10', 3));
      expect(await service.chain.balanceOf(payer.address)).toBe(afterToken);

      const bySignIn = await paidExtension(4, async () => ({
        args: {},
        meta: { 'x402/sign-in-with-x': await signIn() },
      }));
      expect(bySignIn.isError).toBeFalsy();
      expect(bySignIn.structuredContent).toMatchObject({ days: 9, status: 'active' });
      const afterSignIn = afterToken - BigInt(watchPriceAtomic('0.10', 4));
      expect(await service.chain.balanceOf(payer.address)).toBe(afterSignIn);

      // One sign-in for the unpaid call and its paid retry: the challenge leaves its nonce unspent.
      const proof = await signIn();
      const asked = await extend({ days: 2 }, { 'x402/sign-in-with-x': proof });
      expect(asked.isError).toBe(true);
      const payment = await clientFor(payer).createPaymentPayload(asked.structuredContent as PaymentRequired);
      const retried = await extend({ days: 2 }, { 'x402/sign-in-with-x': proof, 'x402/payment': payment });
      expect(retried.isError).toBeFalsy();
      expect(retried.structuredContent).toMatchObject({ days: 11, status: 'active' });
      const afterRetry = afterSignIn - BigInt(watchPriceAtomic('0.10', 2));
      expect(await service.chain.balanceOf(payer.address)).toBe(afterRetry);
      // Spent by that payment, for it alone: the same paid call again gets the same result, charged
      // once; an unpaid call with the proof, which could only start another payment, is refused.
      const again = await extend({ days: 2 }, { 'x402/sign-in-with-x': proof, 'x402/payment': payment });
      expect(again.isError).toBeFalsy();
      const { days, expires_at } = retried.structuredContent as { days: number; expires_at: string };
      expect(again.structuredContent).toMatchObject({ days, expires_at, status: 'active' });
      const unpaidAgain = await extend({ days: 2 }, { 'x402/sign-in-with-x': proof });
      expect(unpaidAgain).toMatchObject({
        isError: true,
        structuredContent: { code: 'invalid_sign_in', reason: expect.stringMatching(/already used/) },
      });
      expect(await service.chain.balanceOf(payer.address)).toBe(afterRetry);
    } finally {
      await client.close();
    }
  });

  it('verifies a smart-contract wallet by EIP-1271, read on the chain', async () => {
    // Two one-line contract wallets (runtime code set on anvil): isValidSignature answers the
    // EIP-1271 magic value 0x1626ba7e for any signature, or 0xffffffff for none.
    const answering = (magic: string) => `0x63${magic}60e01b60005260206000f3` as const;
    const anvil = createTestClient({
      mode: 'anvil',
      chain: baseChainAt(service.chain.rpcUrl),
      transport: http(service.chain.rpcUrl.href),
    });
    const owner = privateKeyToAccount(generatePrivateKey());
    const wallets = {
      accepting: privateKeyToAccount(generatePrivateKey()).address,
      refusing: privateKeyToAccount(generatePrivateKey()).address,
    };
    await anvil.setCode({ address: wallets.accepting, bytecode: answering('1626ba7e') });
    await anvil.setCode({ address: wallets.refusing, bytecode: answering('ffffffff') });
    const url = new URL('/v1/watches', service.url);
    for (const [name, address] of Object.entries(wallets)) {
      // The contract's owner signs; the message names the contract as the address.
      const signer = {
        address,
        signMessage: ({ message }: { message: string }) => owner.signMessage({ message }),
      };
      const res = await fetch(url, { headers: { [SIGN_IN_WITH_X]: await proofFor(url, signer) } });
      const body = (await res.json()) as { watches?: unknown[]; code?: string };
      if (name === 'accepting') expect(body, name).toEqual({ watches: [], next_cursor: null });
      else expect(body.code, name).toBe('invalid_sign_in');
    }
  });
});
