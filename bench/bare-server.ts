/**
 * The bench's baseline: a bare Hono app on the Node adapter answering, per path, the exact status,
 * headers and body the product answered for it (read as JSON from the file named by argv[2]).
 */
import { readFileSync } from 'node:fs';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

export interface CapturedAnswer {
  path: string;
  status: number;
  headers: Record<string, string>;
  body: string;
}

const answers = JSON.parse(readFileSync(process.argv[2] as string, 'utf8')) as CapturedAnswer[];
const app = new Hono();
for (const answer of answers) {
  const path = new URL(answer.path, 'http://x').pathname;
  app.get(path, (c) => c.body(answer.body, answer.status as ContentfulStatusCode, answer.headers));
}
const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: Number(process.argv[3]) });
process.on('SIGTERM', () => server.close(() => process.exit(0)));
