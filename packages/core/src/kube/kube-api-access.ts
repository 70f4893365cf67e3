import { readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';

/** How to reach the Kubernetes API server: its URL, a bearer token and the CA that signed its certificate. */
export interface KubeApiAccess {
  /** `https://10.96.0.1:443` (plain `http://` only for tests). */
  readonly server: string;
  readonly token?: string;
  /** PEM of the cluster CA. */
  readonly ca?: string;
}

/** Where a pod's service account credentials are mounted. */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/**
 * The in-cluster access of a pod: `$KUBERNETES_SERVICE_HOST`/`_PORT` and the service account's token and CA;
 * undefined outside a cluster (no such variables or no token).
 */
export async function inClusterAccess(
  env: Readonly<Record<string, string | undefined>>,
  dir: string = SERVICE_ACCOUNT_DIR,
): Promise<KubeApiAccess | undefined> {
  const host = env['KUBERNETES_SERVICE_HOST'];
  const port = env['KUBERNETES_SERVICE_PORT'] ?? '443';
  if (host === undefined || host === '') return undefined;
  const token = await readFile(join(dir, 'token'), 'utf8').catch(() => undefined);
  if (token === undefined) return undefined;
  const ca = await readFile(join(dir, 'ca.crt'), 'utf8').catch(() => undefined);
  const server = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return { server, token: token.trim(), ...(ca !== undefined ? { ca } : {}) };
}

/** An API server answer that is not 200, with the status (403: the service account lacks the permission). */
export class KubeApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'KubeApiError';
  }
}

const MAX_BYTES = 4 * 1024 * 1024;

/** GETs a JSON object from the API server (`/api/v1/nodes/node-1`); rejects with {@link KubeApiError} or a network error. */
export function getKubeJson(access: KubeApiAccess, path: string, timeoutMs = 10_000): Promise<unknown> {
  const url = new URL(path, access.server);
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'GET',
        headers: {
          accept: 'application/json',
          ...(access.token !== undefined ? { authorization: `Bearer ${access.token}` } : {}),
        },
        ...(access.ca !== undefined ? { ca: access.ca } : {}),
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_BYTES) req.destroy(new Error(`answer larger than ${MAX_BYTES} bytes`));
          else chunks.push(chunk);
        });
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          if (status !== 200) {
            let message = body.slice(0, 300);
            try {
              message = String((JSON.parse(body) as { message?: unknown }).message ?? message);
            } catch {
              // Not JSON: the start of the body says enough.
            }
            reject(new KubeApiError(status, `GET ${url.pathname}: ${status} ${message}`));
            return;
          }
          try {
            resolve(JSON.parse(body));
          } catch {
            reject(new Error(`GET ${url.pathname}: the answer is not JSON`));
          }
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`GET ${url.pathname}: no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}
