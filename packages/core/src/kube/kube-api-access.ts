import { readFile } from 'node:fs/promises';
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
