import { writeFileSync } from 'node:fs';

/** Writes a kubeconfig (owner-only) that points a client at the API server at `serverUrl`, without credentials. */
export function writeKubeconfig(file: string, serverUrl: string): void {
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': 'demo',
      contexts: [{ name: 'demo', context: { cluster: 'demo', user: 'demo' } }],
      clusters: [{ name: 'demo', cluster: { server: serverUrl } }],
      users: [{ name: 'demo', user: {} }],
    }),
    { mode: 0o600 },
  );
}
