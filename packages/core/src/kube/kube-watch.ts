import type { ClientRequest } from 'node:http';
import type { KubeApiAccess } from './kube-api-access';
import { kubeApiError } from './kube-api-error';
import { openKubeRequest, withQuery } from './kube-request';

/** One event of a watch stream: `ADDED`, `MODIFIED`, `DELETED`, `BOOKMARK`, or `ERROR` (object is a Status). */
export interface KubeWatchEvent {
  readonly type: string;
  readonly object: Record<string, unknown>;
}

/** A running watch (`KubeClient.watch`). */
export interface KubeWatch {
  /** Settles when the stream ends: resolves on a clean end or {@link KubeWatch.stop}, rejects on a failure. */
  readonly done: Promise<void>;
  /** Ends the stream (idempotent). */
  stop(): void;
}

/** What one watch stream needs besides its path. */
export interface KubeWatchRequest {
  /** A list path with its selectors and `resourceVersion`; `watch=true` is added. */
  readonly path: string;
  readonly onEvent: (event: KubeWatchEvent) => void;
  /** Bounds the connection and the wait for the answer's headers, not the stream. */
  readonly timeoutMs: number;
  /** The longest line (one event) of the stream. */
  readonly maxLineBytes: number;
}

/**
 * Opens a watch stream and calls `onEvent` for every JSON line. A non-200 answer rejects `done` with the
 * `KubeApiError`; an `ERROR` event is delivered (410 Expired: list again) and the caller decides whether to stop.
 */
export function openKubeWatch(access: KubeApiAccess, request: KubeWatchRequest): KubeWatch {
  const { path, onEvent, timeoutMs, maxLineBytes } = request;
  const target = withQuery(path, { watch: 'true' });
  let stopped = false;
  let req: ClientRequest | undefined;
  let headerTimer: NodeJS.Timeout | undefined;
  const done = new Promise<void>((resolve, reject) => {
    req = openKubeRequest(access, 'GET', target, {}, undefined, (res) => {
      if (headerTimer !== undefined) clearTimeout(headerTimer);
      const status = res.statusCode ?? 0;
      if (status !== 200) {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          reject(
            kubeApiError('GET', target, status, Buffer.concat(chunks).toString('utf8').slice(0, 64_000)),
          ),
        );
        res.on('error', reject);
        return;
      }
      let pending = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        pending += chunk;
        let newline = pending.indexOf('\n');
        while (newline >= 0 && !stopped) {
          const line = pending.slice(0, newline).trim();
          pending = pending.slice(newline + 1);
          newline = pending.indexOf('\n');
          if (line === '') continue;
          let event: KubeWatchEvent;
          try {
            event = JSON.parse(line) as KubeWatchEvent;
          } catch {
            req?.destroy(new Error(`watch ${path}: a line of the stream is not JSON`));
            return;
          }
          onEvent(event);
        }
        if (pending.length > maxLineBytes)
          req?.destroy(new Error(`watch ${path}: a line longer than ${maxLineBytes}`));
      });
      res.on('end', () => resolve());
      res.on('close', () => resolve());
      res.on('error', (error) => (stopped ? resolve() : reject(error)));
    });
    headerTimer = setTimeout(
      () => req?.destroy(new Error(`watch ${path}: no answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    headerTimer.unref();
    req.on('error', (error) => (stopped ? resolve() : reject(error)));
    req.end();
  });
  return {
    done,
    stop() {
      if (stopped) return;
      stopped = true;
      if (headerTimer !== undefined) clearTimeout(headerTimer);
      req?.destroy();
    },
  };
}
