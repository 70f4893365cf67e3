/** Calls `handler` on the first SIGINT or SIGTERM and exits 130 on the second; returns the unregistration. */
export function onProcessSignals(handler: () => void): () => void {
  let count = 0;
  const listener = (): void => {
    count++;
    if (count > 1) process.exit(130);
    handler();
  };
  process.on('SIGINT', listener);
  process.on('SIGTERM', listener);
  return () => {
    process.off('SIGINT', listener);
    process.off('SIGTERM', listener);
  };
}
