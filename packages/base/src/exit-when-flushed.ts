/** A stream whose written data can be waited for: process.stdout, process.stderr, a socket. */
export interface FlushableStream {
  /** Queues `chunk`; `callback` runs once it and every earlier write were handed over, or failed. */
  write(chunk: string, callback: (error?: Error | null) => void): unknown;
  /** A write's failure (EPIPE: the reader is gone). */
  once(event: 'error', listener: (error: Error) => void): unknown;
  /** Removes an `error` listener. */
  off(event: 'error', listener: (error: Error) => void): unknown;
}

/**
 * Resolves once everything written to `streams` so far has been handed to the OS: a write's callback runs after
 * every earlier write's. A stream that fails (its reader gone: EPIPE) counts as flushed, without an uncaught error.
 */
export function flushStreams(
  streams: readonly FlushableStream[] = [process.stdout, process.stderr],
): Promise<void> {
  return Promise.all(
    streams.map(
      (stream) =>
        new Promise<void>((resolve) => {
          const onError = (): void => resolve();
          stream.once('error', onError);
          stream.write('', (error) => {
            // A failed write emits 'error' after its callback: the listener stays for it.
            if (error === undefined || error === null) stream.off('error', onError);
            resolve();
          });
        }),
    ),
  ).then(() => undefined);
}

/**
 * Exits the process with `code` once stdout and stderr are flushed. `process.exit` straight after a write cuts a
 * pipe's output at what the pipe holds (64 KiB on Linux): `discover --output json | jq` would read half a document.
 */
export async function exitWhenFlushed(
  code: number,
  exit: (code: number) => void = (exitCode) => process.exit(exitCode),
  streams?: readonly FlushableStream[],
): Promise<void> {
  await flushStreams(streams);
  exit(code);
}
