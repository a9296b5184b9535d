/**
 * The suite's one poll (CONTRIBUTING.md, "Conventions"): asks `check` until it gives a value other
 * than false, null or undefined, and resolves that value. Past `withinMs` it fails with a message
 * naming what it waited for and the last answer, well inside the test's timeout, rather than leaving
 * the test to end at its timeout with no message. The deadline is a bound on a broken test, not a
 * claim about speed: wait for the event, and keep the default's margin over how long it may take.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export interface WaitOptions {
  /** What is awaited, for the failure: "the watch's first attempt". */
  what: string;
  /** Default 20 s: inside the 30 s test timeout, and ten times what any wait here takes on a busy machine. */
  withinMs?: number;
  /** Between two checks; default 10 ms (0: the next turn of the event loop). */
  everyMs?: number;
}

export async function waitFor<T>(
  check: () => T | Promise<T>,
  { what, withinMs = 20_000, everyMs = 10 }: WaitOptions,
): Promise<Exclude<T, false | null | undefined>> {
  const deadline = performance.now() + withinMs;
  for (;;) {
    const value = await check();
    if (value !== false && value !== null && value !== undefined) {
      return value as Exclude<T, false | null | undefined>;
    }
    if (performance.now() > deadline) {
      throw new Error(`waited ${withinMs} ms for ${what}; the last check gave ${String(value)}`);
    }
    await sleep(everyMs);
  }
}
