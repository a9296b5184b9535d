/** RFC 9110 §15.5.6: a known path with the wrong method is a 405 problem with an `Allow` header. */
import type { Env, Hono, MiddlewareHandler } from 'hono';
import { methodNotAllowed } from 'hono/method-not-allowed';
import { PROBLEM_CODES, sendProblem } from '../problems.ts';

/** Turns the 404 of a path that exists under another method into a 405 problem. */
export function methodNotAllowedProblem<E extends Env>(app: Hono<E>): MiddlewareHandler<E> {
  return methodNotAllowed<E>({
    app,
    onMethodNotAllowed: (c, allowed) => {
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
    },
  });
}
