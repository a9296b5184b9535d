/**
 * A webhook receiver for watches: verifies each delivery's Standard Webhooks signature with the
 * `standardwebhooks` package, drops repeats by `webhook-id`, and prints the event.
 *
 *   WEBHOOK_SECRET=whsec_… PORT=3000 npm exec -- node examples/typescript/watch-receiver.ts
 *
 * Give the watch a public https URL that reaches this server (e.g. behind a reverse proxy) as its
 * `webhook_url`, and `WEBHOOK_SECRET` the `webhook_secret` of the 201. Answer 2xx within 15 s;
 * anything else is retried with the same `webhook-id`; 410 stops deliveries to the URL.
 *
 * Dependencies: standardwebhooks.
 */
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

const secret = process.env.WEBHOOK_SECRET;
if (!secret?.startsWith('whsec_'))
  throw new Error("Set WEBHOOK_SECRET to the watch's webhook_secret (whsec_…).");
const webhook = new Webhook(secret);
const seen = new Set<string>();
const MAX_BODY_BYTES = 1024 * 1024;

createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return void res.writeHead(413).end();
    chunks.push(chunk as Buffer);
  }
  const body = Buffer.concat(chunks).toString('utf8');
  let event: { id: string; type: string; domain: string; data: { raised?: string[]; cleared?: string[] } };
  try {
    // Checks the signature and that webhook-timestamp is within 5 minutes of now.
    event = webhook.verify(body, {
      'webhook-id': String(req.headers['webhook-id']),
      'webhook-timestamp': String(req.headers['webhook-timestamp']),
      'webhook-signature': String(req.headers['webhook-signature']),
    }) as typeof event;
  } catch {
    return void res.writeHead(400).end();
  }
  res.writeHead(204).end();
  if (seen.has(event.id)) return; // a retry of an event already handled
  seen.add(event.id);
  const change =
    event.type === 'watch.alert'
      ? ` raised=[${event.data.raised?.join(', ')}] cleared=[${event.data.cleared?.join(', ')}]`
      : '';
  console.log(`${event.type} ${event.domain}${change}`);
}).listen(Number(process.env.PORT ?? 3000));
