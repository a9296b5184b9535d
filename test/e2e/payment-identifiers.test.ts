/**
 * x402 payment identifiers end to end, as deployed, on a local chain: one Node instance, two Node
 * instances sharing a real redis-server (the copy goes to the other instance), and the Worker in
 * local workerd; each over HTTP with the official `@x402/fetch` client and over MCP with the official
 * MCP client. The official x402 client echoes the declaration but adds no `id` by itself: the `id`
 * is appended by the SDK's own helper (`appendPaymentIdentifierToExtensions`) in its
 * `onBeforePaymentCreation` hook, as the x402 payment-identifier example does. Charges are read
 * from the chain.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { x402Client } from '@x402/core/client';
import {
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  encodePaymentSignatureHeader,
} from '@x402/core/http';
import type { PaymentPayload, PaymentRequired, SettleResponse } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import {
  appendPaymentIdentifierToExtensions,
  declarePaymentIdentifierExtension,
  generatePaymentId,
  PAYMENT_IDENTIFIER,
} from '@x402/extensions/payment-identifier';
import { wrapFetchWithPayment } from '@x402/fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePrivateKey, type PrivateKeyAccount } from 'viem/accounts';
import type { Transport } from '../world/paying-clients.ts';
import { QUIET_AFTER_ABORT_MS, QUIET_AFTER_ANSWER_MS, quiet } from './charged-iff-delivered.ts';
import { type RedisServer, startRedisServer } from '../world/redis-server.ts';
import {
  type Runtime,
  type SelfSettlingService,
  type SettlementWorld,
  startSettlementWorld,
} from '../world/self-settling-service.ts';

const OPERATION = { route: '/v1/cert', tool: 'check_cert', domain: 'healthy-shop.com' } as const;
const PRICE = 10_000n;
const FUNDS = 1_000_000n;

/** What a client got: HTTP status (MCP: null), problem code, the result, and the receipt as sent. */
interface Answer {
  status: number | null;
  code: string | null;
  /** The check's result (JSON text) when delivered, else null. */
  result: string | null;
  /** `PAYMENT-RESPONSE` as sent, or over MCP `_meta["x402/payment-response"]` as JSON; null when none. */
  receipt: string | null;
}

/** One transport's client side against a service: the challenge, a signed payment, sending it. */
interface Channel {
  challenge(): Promise<PaymentRequired>;
  /** A paid call with the official client end to end; the payment it sent. */
  pay(payer: PrivateKeyAccount, id: string): Promise<{ answer: Answer; payment: PaymentPayload }>;
  /** Sends `payment` as it is (for `domain`, default the operation's). */
  send(payment: PaymentPayload, domain?: string): Promise<Answer>;
  /**
   * A paid call with the official client whose client leaves when `leaving.signal` aborts (it must);
   * the payment it sent.
   */
  payAndLeave(payer: PrivateKeyAccount, id: string, leaving: Leaving): Promise<PaymentPayload>;
}

/** How a client leaves: its request's signal, and the headers that let the Worker be told. */
interface Leaving {
  signal: AbortSignal;
  headers: Record<string, string>;
}

/** Runs `call`, which must end because its client left (an abort), not with an answer. */
async function leftDuring(call: () => Promise<unknown>): Promise<void> {
  const outcome = await call().then(
    () => 'answered',
    (error: unknown) =>
      error instanceof Error && /abort/i.test(`${error.name} ${error.message}`) ? 'left' : error,
  );
  if (outcome !== 'left') throw new Error(`the client did not leave: ${String(outcome)}`);
}

function officialClient(payer: PrivateKeyAccount, id?: string): x402Client {
  const client = x402Client.fromConfig({
    schemes: [{ network: 'eip155:8453', client: new ExactEvmScheme(payer) }],
  });
  if (id) {
    client.onBeforePaymentCreation(async ({ paymentRequired }) => {
      appendPaymentIdentifierToExtensions((paymentRequired.extensions ??= {}), id);
    });
  }
  return client;
}

/** `@x402/fetch` paying for `payer` under `id`, and the payment it sent last. */
function officialFetch(payer: PrivateKeyAccount, id: string) {
  let sent: string | null = null;
  const recording: typeof fetch = (input, init) => {
    const request = new Request(input, init);
    sent = request.headers.get('payment-signature') ?? sent;
    return fetch(request);
  };
  return {
    fetch: wrapFetchWithPayment(recording, officialClient(payer, id)),
    sent: () => JSON.parse(Buffer.from(sent ?? '', 'base64').toString('utf8')) as PaymentPayload,
  };
}

function httpChannel(base: () => URL): Channel {
  const url = (domain: string) => new URL(`${OPERATION.route}?domain=${domain}`, base());
  const read = async (res: Response): Promise<Answer> => {
    const text = await res.text();
    const delivered = res.status === 200;
    return {
      status: res.status,
      code: delivered ? null : ((JSON.parse(text) as { code?: string }).code ?? null),
      result: delivered ? text : null,
      receipt: res.headers.get('payment-response'),
    };
  };
  return {
    async challenge() {
      const res = await fetch(url(OPERATION.domain));
      await res.arrayBuffer();
      return decodePaymentRequiredHeader(res.headers.get('payment-required') ?? '');
    },
    async pay(payer, id) {
      const paying = officialFetch(payer, id);
      const answer = await read(await paying.fetch(url(OPERATION.domain)));
      return { answer, payment: paying.sent() };
    },
    async payAndLeave(payer, id, { signal, headers }) {
      const paying = officialFetch(payer, id);
      await leftDuring(() => paying.fetch(url(OPERATION.domain), { signal, headers }));
      return paying.sent();
    },
    async send(payment, domain = OPERATION.domain) {
      return read(
        await fetch(url(domain), { headers: { 'payment-signature': encodePaymentSignatureHeader(payment) } }),
      );
    },
  };
}

function mcpChannel(base: () => URL): Channel {
  const call = async (
    domain: string,
    payment?: PaymentPayload,
    leaving?: Leaving,
  ): Promise<CallToolResult> => {
    const client = new Client({ name: 'payment-identifiers', version: '1.0.0' });
    const requestInit = { headers: leaving?.headers ?? {} };
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', base()), { requestInit }));
    try {
      const params = {
        name: OPERATION.tool,
        arguments: { domain },
        ...(payment ? { _meta: { 'x402/payment': payment } } : {}),
      };
      const options = leaving ? { signal: leaving.signal } : {};
      return (await client.callTool(params, undefined, options)) as CallToolResult;
    } finally {
      await client.close();
    }
  };
  const read = (result: CallToolResult): Answer => {
    const delivered = result.isError !== true;
    const body = result.structuredContent as { code?: string } | undefined;
    const receipt = result._meta?.['x402/payment-response'];
    return {
      status: null,
      code: delivered ? null : (body?.code ?? null),
      result: delivered ? JSON.stringify(body) : null,
      receipt: receipt === undefined ? null : JSON.stringify(receipt),
    };
  };
  const channel: Channel = {
    async challenge() {
      return (await call(OPERATION.domain)).structuredContent as unknown as PaymentRequired;
    },
    async pay(payer, id) {
      const payment = await officialClient(payer, id).createPaymentPayload(await channel.challenge());
      return { answer: read(await call(OPERATION.domain, payment)), payment };
    },
    send: async (payment, domain = OPERATION.domain) => read(await call(domain, payment)),
    async payAndLeave(payer, id, leaving) {
      const payment = await officialClient(payer, id).createPaymentPayload(await channel.challenge());
      await leftDuring(() => call(OPERATION.domain, payment, leaving));
      return payment;
    },
  };
  return channel;
}

/** A payment signed by the official client for the current challenge, with `id` set as given (even a malformed one). */
async function signedWithId(
  channel: Channel,
  payer: PrivateKeyAccount,
  id: unknown,
): Promise<PaymentPayload> {
  const payment = await officialClient(payer).createPaymentPayload(await channel.challenge());
  (payment.extensions?.[PAYMENT_IDENTIFIER] as { info: Record<string, unknown> }).info.id = id;
  return payment;
}

const HOSTILE_IDS: [string, unknown][] = [
  ['15 characters', 'pay_0123456789a'],
  ['129 characters', `pay_${'a'.repeat(125)}`],
  ['Unicode', 'pay_ünïcødé_ïdéntïfïér'],
  ['SQL-shaped', "pay_'; DROP TABLE payments;--"],
  ['Redis-shaped', 'pay_0123456789abcdef\r\nFLUSHALL\r\n'],
  ['a key path', 'pay_0123456789abcdef:lock:*'],
  ['a number', 1234567890123456],
];

interface Setup {
  runtime: Runtime;
  title: string;
  /** The instances: the first takes the payment, the last gets the copies. */
  services(world: SettlementWorld): Promise<SelfSettlingService[]>;
}

let redis: RedisServer | undefined;

const SETUPS: Setup[] = [
  { runtime: 'node', title: 'one Node instance', services: async (world) => [await world.startService()] },
  {
    runtime: 'node',
    title: 'two Node instances sharing Redis (copies go to the other instance)',
    async services(world) {
      redis = await startRedisServer();
      // One public URL for the fleet, as behind its load balancer: a payment signed for the route
      // on one instance is for the same resource on the other.
      const env = { REDIS_URL: redis.url.href, PUBLIC_BASE_URL: 'https://checks.example.test' };
      const options = { settlerPrivateKey: generatePrivateKey(), env };
      return Promise.all([world.startService(options), world.startService(options)]);
    },
  },
  { runtime: 'edge', title: 'the Worker', services: async (world) => [await world.startService()] },
];

describe.each(SETUPS)('payment identifiers, $title', ({ runtime, services: start }) => {
  let world: SettlementWorld;
  let services: SelfSettlingService[];
  beforeAll(async () => {
    world = await startSettlementWorld({ runtime });
    services = await start(world);
  }, 180_000);
  afterAll(async () => {
    await world?.close();
    await redis?.close();
    redis = undefined;
  });

  const first = () => (services[0] as SelfSettlingService).process.url;
  const last = () => (services.at(-1) as SelfSettlingService).process.url;
  const charged = async (payer: PrivateKeyAccount) => FUNDS - (await world.chain.balanceOf(payer.address));
  describe.each(['http', 'mcp'] as Transport[])('over %s', (transport) => {
    const channel = (base: () => URL) => (transport === 'http' ? httpChannel(base) : mcpChannel(base));

    it('advertises the identifier, optional, with its schema, in the challenge', async () => {
      const challenge = await channel(first).challenge();
      expect(challenge.extensions?.[PAYMENT_IDENTIFIER]).toEqual(declarePaymentIdentifierExtension(false));
    });

    it('answers the same payment again after delivery with the stored answer and receipt: one check, one charge', async () => {
      const payer = await world.newPayer(FUNDS);
      const id = generatePaymentId();
      const { answer, payment } = await channel(first).pay(payer, id);
      expect(answer).toMatchObject({ code: null });
      expect(answer.receipt).not.toBeNull();
      expect(payment.extensions?.[PAYMENT_IDENTIFIER]).toMatchObject({ info: { required: false, id } });

      const again = await channel(last).send(payment);
      expect(again).toEqual(answer);
      expect(await charged(payer)).toBe(PRICE);
      if (redis) {
        // Kept under the payer and the id, as digests and the answer: never the signature.
        const key = `website-checks:paid-answer:${payer.address.toLowerCase()}:${id}`;
        const stored = await redis.client.hgetall(key);
        expect(Object.keys(stored).sort()).toEqual(['answer', 'binding']);
        const signature = (payment.payload as { signature: string }).signature;
        expect(JSON.stringify(stored).toLowerCase()).not.toContain(signature.slice(2).toLowerCase());
      }

      // The payer signs again under the same id (a new payment): 409, not run, not charged.
      const resigned = await channel(last).pay(payer, id);
      expect(resigned.answer).toMatchObject({ code: 'payment_identifier_conflict', receipt: null });
      expect(resigned.payment.payload).not.toEqual(payment.payload);
      // The same payment for another domain: 409 too.
      expect(await channel(last).send(payment, 'example.com')).toMatchObject({
        code: 'payment_identifier_conflict',
        receipt: null,
      });
      // A new id is a new payment.
      expect((await channel(last).pay(payer, generatePaymentId())).answer).toMatchObject({ code: null });
      expect(await charged(payer)).toBe(2n * PRICE);
    });

    it('answers a payment whose first answer was lost (the client left once the settlement was sent) with the stored answer and receipt: no second check, one charge', async () => {
      const service = services[0] as SelfSettlingService;
      const payer = await world.newPayer(FUNDS);
      const id = generatePaymentId();
      // The transfer reaches the chain, its answer is held: the client leaves meanwhile.
      service.proxy.reset();
      service.proxy.rule('eth_sendRawTransaction', { holdResponse: 'until-released' });
      const controller = new AbortController();
      const client = crypto.randomUUID();
      const left = service.proxy
        .until('eth_sendRawTransaction', (call) => call.forwarded)
        .then(async () => {
          controller.abort();
          // The Worker in local workerd is told, as Cloudflare's request signal would tell it.
          return service.clientGone ? service.clientGone.report(client) : true;
        });
      const headers = service.clientGone?.headers(client) ?? {};
      const payment = await channel(first).payAndLeave(payer, id, { signal: controller.signal, headers });
      expect(await left, 'the service saw the client leave').toBe(true);
      service.proxy.reset();
      await quiet({ settlement: world, service }, QUIET_AFTER_ABORT_MS);
      expect(await charged(payer)).toBe(PRICE);

      const crtshAsked = world.world.crtsh.requests.length;
      const rpcCalls = services.map((each) => each.proxy.calls().length);
      const recovered = await channel(last).send(payment);
      expect(recovered).toMatchObject({ status: transport === 'http' ? 200 : null, code: null });
      expect(JSON.parse(recovered.result ?? '{}')).toMatchObject({ domain: OPERATION.domain });
      const receipt =
        transport === 'http'
          ? decodePaymentResponseHeader(recovered.receipt ?? '')
          : (JSON.parse(recovered.receipt ?? '{}') as SettleResponse);
      expect(receipt).toMatchObject({ success: true, payer: payer.address, network: 'eip155:8453' });
      expect(receipt.transaction).toMatch(/^0x[0-9a-f]{64}$/);
      // Not checked again (crt.sh, the check's first upstream, not asked), not verified nor settled again.
      expect(world.world.crtsh.requests.length).toBe(crtshAsked);
      expect(services.map((each) => each.proxy.calls().length)).toEqual(rpcCalls);
      // Sent once more, the same answer, byte for byte; the payer charged once.
      expect(await channel(first).send(payment)).toEqual(recovered);
      await quiet({ settlement: world, service }, QUIET_AFTER_ANSWER_MS);
      expect(await charged(payer)).toBe(PRICE);
    });

    it.each(HOSTILE_IDS)(
      'refuses a valid payment whose id is %s with 400 before payment: not charged, nothing settled',
      async (_what, id) => {
        const payer = await world.newPayer(FUNDS);
        const payment = await signedWithId(channel(first), payer, id);
        const answer = await channel(first).send(payment);
        expect(answer).toMatchObject({
          status: transport === 'http' ? 400 : null,
          code: 'invalid_payment_identifier',
          receipt: null,
        });
        expect(await charged(payer)).toBe(0n);
      },
    );

    it('answers concurrent copies of one payment, and another payment under its id, once: one charge', async () => {
      const payer = await world.newPayer(FUNDS);
      const id = generatePaymentId();
      const payment = await signedWithId(channel(first), payer, id);
      const other = await signedWithId(channel(first), payer, id);
      const answers = await Promise.all([
        ...Array.from({ length: 4 }, (_, i) => channel(i % 2 ? last : first).send(payment)),
        channel(last).send(other),
      ]);
      const delivered = answers.filter((answer) => answer.code === null);
      expect(delivered.length).toBeGreaterThanOrEqual(1);
      for (const answer of delivered) expect(answer).toEqual(delivered[0]);
      for (const answer of answers.filter((a) => a.code !== null)) {
        expect(answer.receipt).toBeNull();
        expect(['payment_in_flight', 'payment_identifier_conflict']).toContain(answer.code);
      }
      expect(await charged(payer)).toBe(PRICE);
      // Whichever payment took the id: its copies get the stored answer, the other one 409.
      const [winner, loser] = answers[4]?.code === null ? [other, payment] : [payment, other];
      expect(await channel(last).send(winner)).toEqual(delivered[0]);
      expect(await channel(first).send(loser)).toMatchObject({ code: 'payment_identifier_conflict' });
      expect(await charged(payer)).toBe(PRICE);
    });
  });
});
