/**
 * The app's `fetch` with a count of the requests it is answering (a graceful stop waits for them).
 * An answer made synchronously is passed on as it is, not as a promise: the Node adapter writes such
 * an answer at once, where a promise costs it an asynchronous step and a close listener per request.
 */
export interface CountedFetch<A extends unknown[]> {
  fetch: (...args: A) => Response | Promise<Response>;
  /** Requests whose answer is not made yet. */
  active: () => number;
  /** Requests taken since the start. */
  started: () => number;
}

export function countedFetch<A extends unknown[]>(
  fetch: (...args: A) => Response | Promise<Response>,
): CountedFetch<A> {
  let active = 0;
  let started = 0;
  const ended = () => {
    active -= 1;
  };
  return {
    active: () => active,
    started: () => started,
    fetch(...args) {
      started += 1;
      active += 1;
      let answer: Response | Promise<Response>;
      try {
        answer = fetch(...args);
      } catch (error) {
        ended();
        throw error;
      }
      if (!(answer instanceof Promise)) {
        ended();
        return answer;
      }
      return answer.finally(ended);
    },
  };
}
