/**
 * A fake x402 facilitator on loopback speaking the HTTP facilitator protocol that the SDK's
 * `HTTPFacilitatorClient` uses (GET /supported, POST /verify, POST /settle), with scripted answers.
 * It records every call into a shared event log, so tests can prove verify → check → settle ordering.
 */
import type { IncomingMessage } from 'node:http';
import type { PaymentPayload, PaymentRequirements, SettleResponse, VerifyResponse } from '@x402/core/types';
import { type LoopbackServer, startLoopbackServer } from './loopback-server.ts';

export interface FacilitatorCall {
  path: '/supported' | '/verify' | '/settle';
  paymentPayload?: PaymentPayload;
  paymentRequirements?: PaymentRequirements;
}

export interface FakeFacilitator extends LoopbackServer {
  calls: FacilitatorCall[];
  /** Next verify answer; default: valid, payer = the authorization's `from`. */
  verifyAnswer: ((payload: PaymentPayload) => VerifyResponse) | null;
  /** The HTTP status the verify answer is sent with (some facilitators refuse with a 400); default 200. */
  verifyStatus: number;
  /** Next settle answer; default: success with a fixed transaction hash. */
  settleAnswer: ((payload: PaymentPayload) => SettleResponse) | null;
  /** When set, GET /supported answers this HTTP status with a text body. */
  supportedFailStatus: number | null;
}

/** The hash the default settle answer reports. */
export const FAKE_TX_HASH = `0x${'ab'.repeat(32)}`;

function payerOf(payload: PaymentPayload | undefined): string {
  const authorization = (payload?.payload as { authorization?: { from?: string } } | undefined)
    ?.authorization;
  return authorization?.from ?? '';
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
}

/** Starts the fake for `network`; `events` receives `facilitator:<path>` entries in call order. */
export async function startFakeFacilitator(network: string, events: string[] = []): Promise<FakeFacilitator> {
  // The handler reads the same object the caller gets back, so scripted answers apply at once.
  const fake = {
    calls: [] as FacilitatorCall[],
    verifyAnswer: null,
    verifyStatus: 200,
    settleAnswer: null,
    supportedFailStatus: null,
  } as Omit<FakeFacilitator, keyof LoopbackServer>;
  const server = await startLoopbackServer(async (req, res, url) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const path = url.pathname as FacilitatorCall['path'];
    if (req.method === 'GET' && path === '/supported') {
      fake.calls.push({ path });
      events.push('facilitator:/supported');
      if (fake.supportedFailStatus !== null) {
        res.writeHead(fake.supportedFailStatus, { 'content-type': 'text/plain' });
        res.end('facilitator unavailable');
        return;
      }
      send(200, { kinds: [{ x402Version: 2, scheme: 'exact', network }], extensions: [], signers: {} });
      return;
    }
    if (req.method !== 'POST' || (path !== '/verify' && path !== '/settle')) {
      send(404, { error: 'not found' });
      return;
    }
    const body = await readJson(req);
    const paymentPayload = body.paymentPayload as PaymentPayload;
    const paymentRequirements = body.paymentRequirements as PaymentRequirements;
    fake.calls.push({ path, paymentPayload, paymentRequirements });
    events.push(`facilitator:${path}`);
    const payer = payerOf(paymentPayload);
    if (path === '/verify') {
      send(fake.verifyStatus, fake.verifyAnswer?.(paymentPayload) ?? { isValid: true, payer });
    } else {
      send(
        200,
        fake.settleAnswer?.(paymentPayload) ?? { success: true, transaction: FAKE_TX_HASH, network, payer },
      );
    }
  });
  return Object.assign(fake, server);
}
