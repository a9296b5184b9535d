/**
 * The hygiene and the route's handler as one handler, so that Hono takes its fast path: with one
 * matched handler, `app.fetch` calls it directly, and a handler that answers synchronously is
 * answered without a promise. With the hygiene as middleware every request is composed
 * (`hono/compose`): an asynchronous step per layer, and those steps cost more than a small route
 * (bench/README.md, "What costs what").
 *
 * `singleStepRouter` wraps the app's router: a match of exactly the hygiene and one handler that
 * takes no `next` becomes one handler running both, with the route's own entry (so `routePath` and
 * `param()` are the route's). Any other match (no route, a route with middleware of its own) is
 * left to Hono's composition, as before. The route's handler is run as `hono/compose` runs it: an
 * `Error` it throws goes to the app's error handler, and its answer becomes `c.res`.
 */
import type { Context, Env, Hono } from 'hono';
import type { Result, Router } from 'hono/router';

/** The hygiene: runs `next` (the route) at most once; its answer is in `c.res` when done. */
export type Hygiene = (c: Context, next: () => void | Promise<void>) => void | Promise<void>;

type Handler = (c: Context, next?: unknown) => unknown;
type Entry<T> = Result<T>[0][number];

/**
 * Replaces `app`'s router (before any route is added) so that a request matching `middleware` and
 * one route handler is served by one handler: `hygiene` around the route's handler.
 */
export function runInOneStep<E extends Env>(app: Hono<E>, middleware: unknown, hygiene: Hygiene): void {
  type T = Parameters<(typeof app.router)['add']>[2];
  const inner = app.router;
  // One combined entry per route, kept for the life of the app (its routes are fixed).
  const combined = new WeakMap<readonly Entry<T>[], Entry<T>[]>();
  const router: Router<T> = {
    name: inner.name,
    add: (method, path, handler) => inner.add(method, path, handler),
    match(method, path) {
      const result = inner.match(method, path);
      const entries = result[0];
      if (entries.length !== 2) return result;
      let single = combined.get(entries);
      if (!single) {
        const [first, route] = entries as [Entry<T>, Entry<T>];
        const handler = (route[0] as unknown as [Handler])[0];
        if ((first[0] as unknown as [unknown])[0] !== middleware || handler.length > 1) return result;
        const step = (c: Context) =>
          answered(
            c,
            hygiene(c, () => runRoute(app, handler, c)),
          );
        single = [
          [[step, (route[0] as unknown as [unknown, unknown])[1]] as unknown as T, route[1]] as Entry<T>,
        ];
        combined.set(entries, single);
      }
      return (result.length === 2 ? [single, result[1]] : [single]) as Result<T>;
    },
  };
  app.router = router;
}

/** `c.res` once `done` is. */
function answered(c: Context, done: void | Promise<void>): Response | Promise<Response> {
  return done instanceof Promise ? done.then(() => c.res) : c.res;
}

/** Runs a route's handler as `hono/compose` does: its answer, or the error handler's, is `c.res`. */
function runRoute<E extends Env>(app: Hono<E>, handler: Handler, c: Context): void | Promise<void> {
  let answer: unknown;
  try {
    answer = handler(c);
  } catch (error) {
    return failed(app, c, error);
  }
  if (answer instanceof Promise) {
    return answer.then(
      (settled) => keep(c, settled, false),
      (error: unknown) => failed(app, c, error),
    );
  }
  keep(c, answer, false);
}

function failed<E extends Env>(app: Hono<E>, c: Context, error: unknown): void | Promise<void> {
  if (!(error instanceof Error)) throw error;
  c.error = error;
  // The handler `app.onError` set, which Hono's composition calls too (typed private, a plain field).
  const { errorHandler } = app as unknown as { errorHandler: (error: Error, c: Context) => unknown };
  const answer = errorHandler(error, c);
  if (answer instanceof Promise) return answer.then((settled) => keep(c, settled, true));
  keep(c, answer, true);
}

function keep(c: Context, answer: unknown, isError: boolean): void {
  if (answer && (c.finalized === false || isError)) c.res = answer as Response;
}
