/**
 * A webhook receiver on loopback that verifies every delivery with the `standardwebhooks` package
 * (not the service's own code) and lets a test await the events it wants. `answer` decides the
 * status of each delivery (default 204).
 */
import { Webhook } from 'standardwebhooks';
import { type LoopbackServer, startLoopbackServer } from './loopback-server.ts';

export interface ReceivedEvent {
  id: string;
  type: string;
  watch_id: string;
  /** RFC 3339. */
  at: string;
  data: Record<string, unknown>;
  webhookId: string;
  /** Whether `standardwebhooks` verified the signature under the secret the receiver was given. */
  verified: boolean;
}

export interface WebhookReceiver extends LoopbackServer {
  received: ReceivedEvent[];
  /** The secret deliveries are verified with (set once the 201 gave it). */
  secret: string | null;
  answer: (event: ReceivedEvent) => number;
  /** Resolves with the first received event (past or future) that `match` accepts. */
  next(match: (event: ReceivedEvent) => boolean): Promise<ReceivedEvent>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const waiters: { match: (event: ReceivedEvent) => boolean; resolve: (event: ReceivedEvent) => void }[] = [];
  const receiver = {
    received: [] as ReceivedEvent[],
    secret: null as string | null,
    answer: (_event: ReceivedEvent) => 204,
  };
  const server = await startLoopbackServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    let verified = false;
    try {
      if (receiver.secret) {
        new Webhook(receiver.secret).verify(body, {
          'webhook-id': String(req.headers['webhook-id']),
          'webhook-timestamp': String(req.headers['webhook-timestamp']),
          'webhook-signature': String(req.headers['webhook-signature']),
        });
        verified = true;
      }
    } catch {
      verified = false;
    }
    const parsed = JSON.parse(body) as Omit<ReceivedEvent, 'webhookId' | 'verified'>;
    const event: ReceivedEvent = { ...parsed, webhookId: String(req.headers['webhook-id']), verified };
    receiver.received.push(event);
    res.writeHead(receiver.answer(event));
    res.end();
    for (const waiter of [...waiters]) {
      if (waiter.match(event)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(event);
      }
    }
  });
  return Object.assign(receiver, server, {
    next(match: (event: ReceivedEvent) => boolean) {
      const seen = receiver.received.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise<ReceivedEvent>((resolve) => waiters.push({ match, resolve }));
    },
  });
}
