import { writeFileSync } from 'node:fs';

/** An API server a test driver talks to: kubelet-sim's (`createApiServer`, `runDraConformance`'s `onReady`). */
export interface TestApiServer {
  /** Base URL, e.g. `http://127.0.0.1:6443`. */
  readonly url: string;
  /** The bearer token it wants, if any. */
  readonly token?: string | undefined;
}

/** Writes a kubeconfig (JSON, which is YAML too) for `--kubeconfig` that reaches `apiServer`; returns `file`. */
export function writeKubeconfig(file: string, apiServer: TestApiServer): string {
  const user = apiServer.token === undefined ? {} : { token: apiServer.token };
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': 'sim',
    contexts: [{ name: 'sim', context: { cluster: 'sim', user: 'sim' } }],
    clusters: [{ name: 'sim', cluster: { server: apiServer.url } }],
    users: [{ name: 'sim', user }],
  };
  writeFileSync(file, `${JSON.stringify(config)}\n`, { mode: 0o600 });
  return file;
}
