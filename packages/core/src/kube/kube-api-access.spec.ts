import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getKubeJson, inClusterAccess, KubeApiError } from './kube-api-access';

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

describe('getKubeJson', () => {
  let server: Server;
  let url: string;
  beforeEach(async () => {
    server = createServer((req, res) => {
      if (req.url === '/ok') res.writeHead(200).end('{"kind":"Node"}');
      else if (req.url === '/text') res.writeHead(200).end('not json');
      else res.writeHead(403).end('{"message":"nodes \\"n\\" is forbidden"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(() => new Promise((resolve) => server.close(resolve)));

  it('resolves with the JSON object, and rejects with the status and the message of the API server', async () => {
    expect(await getKubeJson({ server: url }, '/ok')).toEqual({ kind: 'Node' });
    const denied = getKubeJson({ server: url, token: 't' }, '/api/v1/nodes/n');
    await expect(denied).rejects.toThrow(
      new KubeApiError(403, 'GET /api/v1/nodes/n: 403 nodes "n" is forbidden'),
    );
    await expect(getKubeJson({ server: url }, '/text')).rejects.toThrow('GET /text: the answer is not JSON');
  });
});
