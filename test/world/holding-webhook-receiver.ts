/**
 * A webhook receiver on loopback for several watches and several senders: it records every POST
 * raw (headers, body, the sender's source port, so a test knows which process sent it) and answers
 * 200; `verify` checks a delivery under its watch's secret with the `standardwebhooks` package.
 * `holdNext()` keeps the next request unanswered (its `entered` promise resolves once it arrived),
 * as a receiver that is slow while its sender dies. (`webhook-receiver.ts`: one watch, verified on arrival.)
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { closeHolding, conditions } from './conditions.ts';

export interface ReceivedWebhook {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  /** The sender's source port: which process sent it. */
  remotePort: number;
}

export interface HoldingWebhookReceiver {
  url: URL;
  received: ReceivedWebhook[];
  /** Keeps the next request `match` accepts unanswered; `entered` resolves with it once it arrived. */
  holdNext(match?: (delivery: ReceivedWebhook) => boolean): { entered: Promise<ReceivedWebhook> };
  /** Resolves once `predicate` holds for what was received (checked on every arrival). */
  until(predicate: (received: ReceivedWebhook[]) => boolean): Promise<void>;
  /** The parsed event of a delivery, if its signature verifies under `secret` (else throws). */
  verify(delivery: ReceivedWebhook, secret: string): unknown;
  close(): Promise<void>;
}

export async function startHoldingWebhookReceiver(): Promise<HoldingWebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const held = new Set<ServerResponse>();
  let holding: {
    match: (delivery: ReceivedWebhook) => boolean;
    hold: (delivery: ReceivedWebhook) => void;
  } | null = null;
  const arrivals = conditions();

  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const header = (name: string) => String(request.headers[name] ?? '');
    const delivery: ReceivedWebhook = {
      id: header('webhook-id'),
      timestamp: header('webhook-timestamp'),
      signature: header('webhook-signature'),
      body: Buffer.concat(chunks).toString('utf8'),
      remotePort: request.socket.remotePort ?? 0,
    };
    const hold = holding;
    if (hold?.match(delivery)) {
      holding = null;
      held.add(response);
      response.once('close', () => held.delete(response));
      hold.hold(delivery);
      return;
    }
    received.push(delivery);
    arrivals.changed();
    response.writeHead(200).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  return {
    url: new URL(`http://127.0.0.1:${port}/hooks`),
    received,
    holdNext(match = () => true) {
      return { entered: new Promise((resolve) => (holding = { match, hold: resolve })) };
    },
    until: (predicate) => arrivals.until(() => predicate(received)),
    verify(delivery, secret) {
      return new Webhook(secret).verify(delivery.body, {
        'webhook-id': delivery.id,
        'webhook-timestamp': delivery.timestamp,
        'webhook-signature': delivery.signature,
      });
    },
    close: () => closeHolding(server, held),
  };
}
