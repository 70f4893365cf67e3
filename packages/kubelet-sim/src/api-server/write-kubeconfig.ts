import { chmod, writeFile } from 'node:fs/promises';

/** What {@link writeKubeconfig} writes. */
export interface KubeconfigOptions {
  /** The API server's URL (`https://127.0.0.1:<port>`). */
  readonly server: string;
  /** The bearer token, when the server wants one. */
  readonly token?: string | undefined;
  /** The PEM of the CA that signed the serving certificate (`certificate-authority-data`). */
  readonly caData?: string | undefined;
  /** The cluster, user and context name; default `kubelet-sim`. */
  readonly context?: string;
}

/**
 * Writes a kubeconfig for one cluster, user and context (the current one) to `path`, mode 0600; the parent
 * directory must exist. The file is JSON, which kubectl reads as YAML.
 */
export async function writeKubeconfig(path: string, options: KubeconfigOptions): Promise<void> {
  const name = options.context ?? 'kubelet-sim';
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name,
        cluster: {
          server: options.server,
          ...(options.caData === undefined
            ? {}
            : { 'certificate-authority-data': Buffer.from(options.caData, 'utf8').toString('base64') }),
        },
      },
    ],
    users: [{ name, user: options.token === undefined ? {} : { token: options.token } }],
    contexts: [{ name, context: { cluster: name, user: name, namespace: 'default' } }],
    'current-context': name,
    preferences: {},
  };
  await writeFile(path, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  await chmod(path, 0o600); // writeFile's mode applies only to a new file
}
