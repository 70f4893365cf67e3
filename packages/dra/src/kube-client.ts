import { type ClientRequest, type IncomingMessage, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { KubeApiError, type KubeApiAccess } from '@kdp/core';

/** One field problem of a 422 Invalid answer (`details.causes` of the API server's `Status`). */
export interface KubeStatusCause {
  readonly reason?: string;
  readonly message?: string;
  readonly field?: string;
}

/**
 * A failed write with what the API server's `Status` body said: its `reason` (`Conflict`, `Invalid`,
 * `AlreadyExists`, …) and, for 422, the field causes. A {@link KubeApiError}, so `status` is the HTTP code.
 */
export class KubeStatusError extends KubeApiError {
  constructor(
    status: number,
    message: string,
    readonly reason: string | undefined,
    readonly causes: readonly KubeStatusCause[],
  ) {
    super(status, message);
    this.name = 'KubeStatusError';
  }
}

/** One event of a watch stream: `ADDED`, `MODIFIED`, `DELETED`, `BOOKMARK`, or `ERROR` (object is a Status). */
export interface KubeWatchEvent {
  readonly type: string;
  readonly object: Record<string, unknown>;
}

/** A running watch from {@link watchKube}. */
export interface KubeWatch {
  /** Settles when the stream ends: resolves on a clean end or {@link KubeWatch.stop}, rejects on a failure. */
  readonly done: Promise<void>;
  /** Ends the stream (idempotent). */
  stop(): void;
}

const MAX_BYTES = 8 * 1024 * 1024;
const MAX_LINE = 8 * 1024 * 1024;

/** Opens a request to the API server with the access's token and CA; the caller writes the body and ends it. */
function openRequest(
  access: KubeApiAccess,
  method: string,
  path: string,
  headers: Record<string, string>,
  timeoutMs: number | undefined,
  onResponse: (res: IncomingMessage) => void,
): ClientRequest {
  const url = new URL(path, access.server);
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return request(
    url,
    {
      method,
      headers: {
        accept: 'application/json',
        ...headers,
        ...(access.token !== undefined ? { authorization: `Bearer ${access.token}` } : {}),
      },
      ...(access.ca !== undefined ? { ca: access.ca } : {}),
      ...(timeoutMs !== undefined ? { timeout: timeoutMs } : {}),
    },
    onResponse,
  );
}

/** The error for a non-2xx answer, from its `Status` body when there is one. */
function statusError(method: string, path: string, status: number, body: string): KubeStatusError {
  let message = body.slice(0, 300);
  let reason: string | undefined;
  let causes: KubeStatusCause[] = [];
  try {
    const parsed = JSON.parse(body) as {
      message?: unknown;
      reason?: unknown;
      details?: { causes?: unknown };
    };
    if (typeof parsed.message === 'string') message = parsed.message;
    if (typeof parsed.reason === 'string') reason = parsed.reason;
    if (Array.isArray(parsed.details?.causes)) causes = parsed.details.causes as KubeStatusCause[];
  } catch {
    // Not JSON: the start of the body says enough.
  }
  return new KubeStatusError(status, `${method} ${path.split('?')[0]}: ${status} ${message}`, reason, causes);
}

/** Sends one JSON request and parses the JSON answer; non-2xx rejects with {@link KubeStatusError}. */
function kubeJsonRequest(
  access: KubeApiAccess,
  method: string,
  path: string,
  body: unknown,
  timeoutMs: number,
): Promise<unknown> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = openRequest(
      access,
      method,
      path,
      payload === undefined
        ? {}
        : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) },
      timeoutMs,
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_BYTES)
            req.destroy(new Error(`${method} ${path}: answer larger than ${MAX_BYTES} bytes`));
          else chunks.push(chunk);
        });
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          if (status < 200 || status > 299) {
            reject(statusError(method, path, status, text));
            return;
          }
          try {
            resolve(text.trim() === '' ? undefined : JSON.parse(text));
          } catch {
            reject(new Error(`${method} ${path}: the answer is not JSON`));
          }
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** POSTs (creates) a JSON object (`/apis/resource.k8s.io/v1/resourceslices`); resolves with the stored object. */
export function postKubeJson(
  access: KubeApiAccess,
  path: string,
  body: unknown,
  timeoutMs = 10_000,
): Promise<unknown> {
  return kubeJsonRequest(access, 'POST', path, body, timeoutMs);
}

/** PUTs (replaces) a JSON object; a stale `metadata.resourceVersion` rejects with a 409 {@link KubeStatusError}. */
export function putKubeJson(
  access: KubeApiAccess,
  path: string,
  body: unknown,
  timeoutMs = 10_000,
): Promise<unknown> {
  return kubeJsonRequest(access, 'PUT', path, body, timeoutMs);
}

/**
 * DELETEs an object or, on a collection path with selectors, a collection; `preconditions` make the API server
 * refuse (409) when the object changed meanwhile. Resolves with the answer (a Status or the deleted objects).
 */
export function deleteKube(
  access: KubeApiAccess,
  path: string,
  options: { preconditions?: { uid?: string; resourceVersion?: string }; timeoutMs?: number } = {},
): Promise<unknown> {
  const body =
    options.preconditions === undefined
      ? undefined
      : { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: options.preconditions };
  return kubeJsonRequest(access, 'DELETE', path, body, options.timeoutMs ?? 10_000);
}

/**
 * Watches a list path (`…/resourceslices?fieldSelector=…&resourceVersion=N`; `watch=true` is added): calls
 * `onEvent` for every JSON line of the stream. A non-200 answer rejects `done` with {@link KubeStatusError};
 * an `ERROR` event is delivered (410 Expired: list again) and the caller decides whether to stop.
 * `timeoutMs` bounds the connection and the wait for the answer's headers, not the stream.
 */
export function watchKube(
  access: KubeApiAccess,
  path: string,
  onEvent: (event: KubeWatchEvent) => void,
  timeoutMs = 10_000,
): KubeWatch {
  const target = `${path}${path.includes('?') ? '&' : '?'}watch=true`;
  let stopped = false;
  let req: ClientRequest | undefined;
  let headerTimer: NodeJS.Timeout | undefined;
  const done = new Promise<void>((resolve, reject) => {
    req = openRequest(access, 'GET', target, {}, undefined, (res) => {
      if (headerTimer !== undefined) clearTimeout(headerTimer);
      const status = res.statusCode ?? 0;
      if (status !== 200) {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          reject(statusError('GET', target, status, Buffer.concat(chunks).toString('utf8').slice(0, 64_000))),
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
        if (pending.length > MAX_LINE)
          req?.destroy(new Error(`watch ${path}: a line longer than ${MAX_LINE}`));
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
