import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { loadKubeAccess } from './load-kube-access';

describe('loadKubeAccess', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'kdp-kubeconfig-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function kubeconfig(cluster: object, user: object): string {
    const path = join(dir, 'kubeconfig');
    writeFileSync(
      path,
      stringify({
        'current-context': 'x',
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
        clusters: [{ name: 'c', cluster }],
        users: [{ name: 'u', user }],
      }),
    );
    return path;
  }

  it('reads the current context: server, CA data and token', async () => {
    const path = kubeconfig(
      {
        server: 'https://10.0.0.1:6443',
        'certificate-authority-data': Buffer.from('PEM').toString('base64'),
      },
      { token: 't0k' },
    );
    expect(await loadKubeAccess({ kubeconfig: path })).toEqual({
      server: 'https://10.0.0.1:6443',
      token: 't0k',
      ca: 'PEM',
    });
  });

  it('resolves CA and token files relative to the kubeconfig', async () => {
    writeFileSync(join(dir, 'ca.crt'), 'CA-FILE');
    writeFileSync(join(dir, 'token'), 'from-file\n');
    const path = kubeconfig(
      { server: 'https://k', 'certificate-authority': 'ca.crt' },
      { tokenFile: 'token' },
    );
    expect(await loadKubeAccess({ kubeconfig: path })).toEqual({
      server: 'https://k',
      token: 'from-file',
      ca: 'CA-FILE',
    });
  });

  it('refuses client-certificate users with a clear message', async () => {
    const path = kubeconfig(
      { server: 'https://k' },
      { 'client-certificate-data': 'x', 'client-key-data': 'y' },
    );
    await expect(loadKubeAccess({ kubeconfig: path })).rejects.toThrow(
      /user authentication by client-certificate-data is not supported/,
    );
  });

  it('uses the service account in a pod and says so when there is none', async () => {
    const sa = join(dir, 'sa');
    mkdirSync(sa);
    writeFileSync(join(sa, 'token'), 'sa-token');
    const env = { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' };
    expect(await loadKubeAccess({ env, serviceAccountDir: sa })).toEqual({
      server: 'https://10.96.0.1:443',
      token: 'sa-token',
    });
    await expect(loadKubeAccess({ env: {}, serviceAccountDir: sa })).rejects.toThrow(/not in a cluster/);
  });
});
