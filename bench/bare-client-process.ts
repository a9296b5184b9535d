/**
 * A bare client in a process of its own (forked by the paid-window section): fetches each URL its
 * parent sends and answers how long the fetch took, body read. Its requests cross between processes
 * as the service's do, so the two pay the same loopback crossings and wake-ups.
 */
process.on('message', (url: string) => {
  const started = performance.now();
  void fetch(url)
    .then((response) => response.arrayBuffer().then(() => response.status))
    .then(
      (status) => process.send?.({ ms: performance.now() - started, status }),
      (error: unknown) => process.send?.({ error: String(error) }),
    );
});
process.on('disconnect', () => process.exit(0));
