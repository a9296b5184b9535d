/**
 * The hygiene and a route's handler run as one handler (`single-step.ts`): a synchronous route is
 * answered without a promise, and everything Hono's composition did still holds — the route's
 * pattern and parameters, the error handler's 500, a route with middleware of its own, a refusal
 * before the route, HEAD — each with the standard headers, one count and one log line.
 */
import type { Context } from 'hono';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { applyHttpHygiene } from '../../../../src/http/hygiene/index.ts';
import { createLogger } from '../../../../src/logger.ts';

interface Logged {
  msg: string;
  route?: string;
  path: string;
  status: number;
  request_id: string;
}

function hygienicApp({ refuse = false, later = false } = {}) {
  const lines: string[] = [];
  const counted: [string, number][] = [];
  const app = new Hono();
  applyHttpHygiene(app, {
    logger: createLogger('info', { write: (line: string) => void lines.push(line) }),
    count: (c: Context, routePath: string) => void counted.push([routePath, c.res.status]),
    limiter: {
      limit: (c) => {
        const refusal = refuse && c.req.path.startsWith('/limited') ? c.text('slow down', 429) : undefined;
        // A shared bucket store (Redis, a Durable Object) answers later.
        return later
          ? new Promise<Response | undefined>((resolve) => setImmediate(() => resolve(refusal)))
          : refusal;
      },
    },
  });
  app.onError((error, c) => c.text(`failed: ${error.message}`, 500));
  const logged = () =>
    lines.map((line) => JSON.parse(line) as Logged).filter((entry) => entry.msg === 'request');
  return { app, logged, counted };
}

const call = (app: Hono, path: string, init?: RequestInit) =>
  app.fetch(new Request(`http://localhost${path}`, init));

describe('the hygiene and the route as one step', () => {
  it('answers a synchronous route synchronously, with the standard headers, one count and one log line', async () => {
    const { app, logged, counted } = hygienicApp();
    app.get('/items/:id', (c) => c.text(`item ${c.req.param('id')}`));
    const answer = call(app, '/items/42');
    expect(answer).toBeInstanceOf(Response);
    const response = await answer;
    expect(await response.text()).toBe('item 42');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(logged()).toMatchObject([
      {
        route: '/items/:id',
        path: '/items/42',
        status: 200,
        request_id: response.headers.get('x-request-id'),
      },
    ]);
    expect(counted).toEqual([['/items/:id', 200]]);
  });

  it('answers an asynchronous route when it settles', async () => {
    const { app, logged } = hygienicApp();
    app.get('/later', async (c) => {
      await new Promise((resolve) => setImmediate(resolve));
      return c.json({ later: true }, 201);
    });
    const response = await call(app, '/later');
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({ later: true });
    expect(logged()).toMatchObject([{ route: '/later', status: 201 }]);
  });

  it('gives what a route throws, at once or later, to the error handler, and logs the 500', async () => {
    const { app, logged, counted } = hygienicApp();
    app.get('/throws', () => {
      throw new Error('at once');
    });
    app.get('/rejects', async () => {
      await Promise.resolve();
      throw new Error('later');
    });
    const now = await call(app, '/throws');
    const later = await call(app, '/rejects');
    expect([now.status, await now.text()]).toEqual([500, 'failed: at once']);
    expect([later.status, await later.text()]).toEqual([500, 'failed: later']);
    expect(now.headers.get('x-request-id')).toBeTruthy();
    expect(logged().map(({ route, status }) => [route, status])).toEqual([
      ['/throws', 500],
      ['/rejects', 500],
    ]);
    expect(counted).toEqual([
      ['/throws', 500],
      ['/rejects', 500],
    ]);
  });

  it('composes a route with middleware of its own, or one that takes next, as Hono does: hygiene once', async () => {
    const { app, logged } = hygienicApp();
    const order: string[] = [];
    app.use('/guarded', async (c, next) => {
      order.push('guard');
      await next();
    });
    app.get('/guarded', (c) => c.text('guarded'));
    app.get('/passes', (c, next) => (c.req.query('pass') ? next() : c.text('kept')));
    expect(await (await call(app, '/guarded')).text()).toBe('guarded');
    expect(await (await call(app, '/passes')).text()).toBe('kept');
    const passed = await call(app, '/passes?pass=1');
    expect(passed.status).toBe(404);
    expect(order).toEqual(['guard']);
    expect(logged().map(({ route, status }) => [route, status])).toEqual([
      ['/guarded', 200],
      ['/passes', 200],
      [undefined, 404],
    ]);
  });

  it('keeps the answer of a POST, with its body limit, in one step and composed', async () => {
    const { app, logged } = hygienicApp();
    app.use('/composed', async (_c, next) => {
      await next();
    });
    app.post('/composed', async (c) => c.text(`composed ${await c.req.text()}`, 201));
    app.post('/single', async (c) => c.text(`single ${await c.req.text()}`, 201));
    for (const path of ['/composed', '/single']) {
      const response = await call(app, path, { method: 'POST', body: 'hello' });
      expect([response.status, await response.text()]).toEqual([201, `${path.slice(1)} hello`]);
    }
    const tooLarge = await call(app, '/single', { method: 'POST', body: 'x'.repeat(70 * 1024) });
    expect(tooLarge.status).toBe(413);
    expect(logged().map(({ route, status }) => [route, status])).toEqual([
      ['/composed', 201],
      ['/single', 201],
      ['/*', 413],
    ]);
  });

  it('logs and counts a refusal before the route under the hygiene pattern, as composition did', async () => {
    const { app, logged, counted } = hygienicApp({ refuse: true });
    let ran = 0;
    app.get('/limited/:id', (c) => {
      ran += 1;
      return c.text('ran');
    });
    const refused = await call(app, '/limited/1');
    expect([refused.status, await refused.text()]).toEqual([429, 'slow down']);
    expect(refused.headers.get('x-request-id')).toBeTruthy();
    expect(ran).toBe(0);
    expect(logged()).toMatchObject([{ route: '/*', path: '/limited/1', status: 429 }]);
    expect(counted).toEqual([['/*', 429]]);
  });

  it('waits for a free-work limit that answers later, then runs the route or keeps the refusal', async () => {
    const { app, logged } = hygienicApp({ refuse: true, later: true });
    app.get('/limited/:id', (c) => c.text('ran'));
    app.get('/free', (c) => c.text('free'));
    const refused = await call(app, '/limited/1');
    const free = await call(app, '/free');
    expect([refused.status, await refused.text()]).toEqual([429, 'slow down']);
    expect([free.status, await free.text()]).toEqual([200, 'free']);
    expect(free.headers.get('x-request-id')).toBeTruthy();
    expect(logged().map(({ route, status }) => [route, status])).toEqual([
      ['/*', 429],
      ['/free', 200],
    ]);
  });

  it('answers HEAD with the GET route, headers and no body', async () => {
    const { app, logged } = hygienicApp();
    app.get('/h', (c) => c.text('body'));
    const response = await call(app, '/h', { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('');
    expect(response.headers.get('x-request-id')).toBeTruthy();
    expect(logged()).toMatchObject([{ route: '/h', status: 200 }]);
  });
});
