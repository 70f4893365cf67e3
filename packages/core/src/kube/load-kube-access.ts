import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type * as Yaml from 'yaml';
import { inClusterAccess, type KubeApiAccess } from './kube-api-access';

/** Options for {@link loadKubeAccess}. */
export interface LoadKubeAccessOptions {
  /** `--kubeconfig FILE`; absent: the pod's service account. */
  readonly kubeconfig?: string | undefined;
  /** Where `KUBERNETES_SERVICE_HOST` / `_PORT` are read; default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
  /** The service account directory; default /var/run/secrets/kubernetes.io/serviceaccount. */
  readonly serviceAccountDir?: string | undefined;
}

interface Kubeconfig {
  'current-context'?: string;
  contexts?: { name?: string; context?: { cluster?: string; user?: string } }[];
  clusters?: { name?: string; cluster?: Record<string, unknown> }[];
  users?: { name?: string; user?: Record<string, unknown> }[];
}

/**
 * How to reach the API server: from a kubeconfig file (the current context's server, CA and bearer token or
 * token file) or, without one, the in-cluster service account. Throws a message naming what is missing, and
 * for kubeconfig authentication this client cannot do (client certificates, exec plugins).
 */
export async function loadKubeAccess(options: LoadKubeAccessOptions = {}): Promise<KubeApiAccess> {
  if (options.kubeconfig === undefined) {
    const access = await inClusterAccess(options.env ?? process.env, options.serviceAccountDir);
    if (access === undefined)
      throw new Error(
        'not in a cluster (no KUBERNETES_SERVICE_HOST or service account token): pass --kubeconfig',
      );
    return access;
  }
  const file = options.kubeconfig;
  const base = dirname(file);
  // The YAML parser is loaded on this path only (a kubeconfig file), as for configuration files (load-config.ts).
  const { parse } = require('yaml') as typeof Yaml;
  const config = parse(await readFile(file, 'utf8')) as Kubeconfig | null;
  const fail = (what: string): never => {
    throw new Error(`kubeconfig ${file}: ${what}`);
  };
  const contextName = config?.['current-context'] ?? fail('no current-context');
  const context = config?.contexts?.find((c) => c.name === contextName)?.context;
  if (context === undefined) fail(`context ${contextName} not found`);
  const cluster = config?.clusters?.find((c) => c.name === context?.cluster)?.cluster;
  if (cluster === undefined) fail(`cluster ${String(context?.cluster)} not found`);
  const user = config?.users?.find((u) => u.name === context?.user)?.user ?? {};
  const server =
    typeof cluster?.['server'] === 'string' ? cluster['server'] : fail('the cluster has no server');
  if (cluster?.['insecure-skip-tls-verify'] === true) fail('insecure-skip-tls-verify is not supported');
  for (const key of ['client-certificate', 'client-certificate-data', 'exec', 'auth-provider'])
    if (user[key] !== undefined) fail(`user authentication by ${key} is not supported: use a token`);
  const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
  const caData = str(cluster?.['certificate-authority-data']);
  const caFile = str(cluster?.['certificate-authority']);
  const ca =
    caData !== undefined
      ? Buffer.from(caData, 'base64').toString('utf8')
      : caFile !== undefined
        ? await readFile(resolve(base, caFile), 'utf8')
        : undefined;
  const tokenFile = str(user['tokenFile']);
  const token =
    str(user['token']) ??
    (tokenFile !== undefined ? (await readFile(resolve(base, tokenFile), 'utf8')).trim() : undefined);
  return { server, ...(token !== undefined ? { token } : {}), ...(ca !== undefined ? { ca } : {}) };
}
