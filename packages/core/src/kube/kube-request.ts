import { type ClientRequest, type IncomingMessage, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { KubeApiAccess } from './kube-api-access';
import { kubeApiError, withoutQuery } from './kube-api-error';

/** Opens a request to the API server with the access's token and CA; the caller writes the body and ends it. */
export function openKubeRequest(
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

/** One JSON request: its verb, path (with query), body and bounds. */
export interface KubeJsonRequest {
  readonly method: string;
  readonly path: string;
  /** Sent as JSON; absent: no body. */
  readonly body?: unknown;
  /** The body's media type; default `application/json` (a patch names its own, e.g. `application/apply-patch+yaml`). */
  readonly contentType?: string | undefined;
  readonly timeoutMs: number;
  /** A longer answer is cut off and the request fails. */
  readonly maxResponseBytes: number;
}

/**
 * Sends one JSON request and parses the JSON answer (an empty one is undefined); a non-2xx answer rejects with
 * `KubeApiError`, and so do network failures, a timeout, an answer over the limit or not JSON (as `Error`).
 */
export function sendKubeJson(access: KubeApiAccess, request: KubeJsonRequest): Promise<unknown> {
  const { method, path, timeoutMs, maxResponseBytes } = request;
  const name = `${method} ${withoutQuery(path)}`;
  const payload = request.body === undefined ? undefined : JSON.stringify(request.body);
  const headers: Record<string, string> =
    payload === undefined
      ? {}
      : {
          'content-type': request.contentType ?? 'application/json',
          'content-length': String(Buffer.byteLength(payload)),
        };
  return new Promise((resolve, reject) => {
    const req = openKubeRequest(access, method, path, headers, timeoutMs, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let overflow = false;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= maxResponseBytes) chunks.push(chunk);
        else if (!overflow) {
          // The part read so far is no answer: fail now and drop the connection.
          overflow = true;
          reject(new Error(`${name}: answer larger than ${maxResponseBytes} bytes`));
          req.destroy();
        }
      });
      res.on('end', () => {
        if (overflow) return;
        const text = Buffer.concat(chunks).toString('utf8');
        const status = res.statusCode ?? 0;
        if (status < 200 || status > 299) {
          reject(kubeApiError(method, path, status, text));
          return;
        }
        try {
          resolve(text.trim() === '' ? undefined : JSON.parse(text));
        } catch {
          reject(new Error(`${name}: the answer is not JSON`));
        }
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${name}: no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** `path` with `params` added to its query string (values URI-encoded). */
export function withQuery(path: string, params: Readonly<Record<string, string>>): string {
  const query = Object.entries(params)
    .map(([key, value]) => `${key}=${encodeURIComponent(value)}`)
    .join('&');
  if (query === '') return path;
  return `${path}${path.includes('?') ? '&' : '?'}${query}`;
}
