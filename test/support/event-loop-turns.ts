/** Proof that work let the event loop run: count the turns other callbacks got meanwhile. */

/** Counts turns of the event loop (a callback that queues itself again) until `stop()`. */
export function turnCounter() {
  let turns = 0;
  let running = true;
  const next = () => {
    if (!running) return;
    turns += 1;
    setImmediate(next);
  };
  setImmediate(next);
  return {
    now: () => turns,
    stop: () => {
      running = false;
    },
  };
}
