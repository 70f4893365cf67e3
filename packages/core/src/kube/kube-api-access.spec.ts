import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inClusterAccess } from './kube-api-access';

describe('inClusterAccess', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'kdp-sa-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("reads the pod's service account and the API server's address from the environment", async () => {
    writeFileSync(join(dir, 'token'), 'tok\n');
    writeFileSync(join(dir, 'ca.crt'), '-----BEGIN CERTIFICATE-----\n');
    const env = { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' };
    expect(await inClusterAccess(env, dir)).toEqual({
      server: 'https://10.96.0.1:443',
      token: 'tok',
      ca: '-----BEGIN CERTIFICATE-----\n',
    });
    expect((await inClusterAccess({ KUBERNETES_SERVICE_HOST: 'fd00::1' }, dir))?.server).toBe(
      'https://[fd00::1]:443',
    );
  });

  it('is undefined outside a cluster: no address, or no token', async () => {
    expect(await inClusterAccess({}, dir)).toBeUndefined();
    expect(await inClusterAccess({ KUBERNETES_SERVICE_HOST: '10.96.0.1' }, dir)).toBeUndefined();
  });
});
