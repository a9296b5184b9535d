/**
 * Not found, or RFC 9110 §15.5.6: a known path with the wrong method is a 405 problem with an
 * `Allow` header; any other unmatched request is a 404 problem.
 */
import type { Context, Env, Hono, NotFoundHandler } from 'hono';
import { TrieRouter } from 'hono/router/trie-router';
import { PROBLEM_CODES } from '../../vocabulary/problems.ts';
import { sendProblem } from '../send-problem.ts';

/**
 * `app`'s not-found handler: 405 when the path has routes under other methods, else 404. Deciding
 * here, not after the 404 as Hono's `methodNotAllowed` middleware does, keeps the 404's headers
 * (its length among them) out of the 405: Hono merges a replaced answer's headers into the new one.
 */
export function notFoundOrNotAllowed<E extends Env>(app: Hono<E>): NotFoundHandler<E> {
  let methodsOf: TrieRouter<string[]> | undefined;
  // Built at the first unmatched request, once every route is registered.
  const allowedMethods = (path: string): string[] => {
    if (!methodsOf) {
      const byPath = new Map<string, Set<string>>();
      for (const route of app.routes) {
        if (route.method === 'ALL' || route.method === 'HEAD') continue;
        const methods = byPath.get(route.path) ?? new Set<string>();
        methods.add(route.method);
        if (route.method === 'GET') methods.add('HEAD');
        byPath.set(route.path, methods);
      }
      methodsOf = new TrieRouter();
      for (const [routePath, methods] of byPath) methodsOf.add('ALL', routePath, [...methods]);
    }
    return [...new Set(methodsOf.match('ALL', path)[0].flatMap(([methods]) => methods))];
  };

  return (c: Context) => {
    const allowed = allowedMethods(c.req.path);
    if (allowed.length === 0 || allowed.includes(c.req.method)) {
      return sendProblem(c, {
        status: 404,
        code: PROBLEM_CODES.notFound,
        title: 'Not found',
        detail: `No resource at ${new URL(c.req.url).pathname}. See /openapi.json or /llms.txt.`,
      });
    }
    const allow = allowed.join(', ');
    return sendProblem(
      c,
      {
        status: 405,
        code: PROBLEM_CODES.methodNotAllowed,
        title: 'Method not allowed',
        detail: `${c.req.method} is not allowed on ${c.req.path}; use ${allow}.`,
      },
      { allow },
    );
  };
}
