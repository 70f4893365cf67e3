import { createServer, type Server } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { createKubeClaimReader } from './claim-reader';
import { loadKubeAccess } from './load-kube-access';
import { allocatedClaim, createTestDirs } from './dra-test.fixture';

describe('createKubeClaimReader', () => {
  let dirs: ReturnType<typeof createTestDirs>;
  let server: Server;
  const requests: { url: string; authorization: string | undefined }[] = [];

  beforeEach(async () => {
    dirs = createTestDirs();
    requests.length = 0;
    server = createServer((req, res) => {
      requests.push({ url: req.url ?? '', authorization: req.headers.authorization });
      const send = (code: number, body: object) => {
        res.writeHead(code, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.url === '/apis/resource.k8s.io/v1/namespaces/ns/resourceclaims/a')
        return send(200, allocatedClaim('a', 'uid-a', [{ device: 'gpu-0' }], { namespace: 'ns' }));
      if (req.url?.endsWith('/forbidden'))
        return send(403, { kind: 'Status', code: 403, message: 'resourceclaims "forbidden" is forbidden' });
      return send(404, { kind: 'Status', code: 404, reason: 'NotFound', message: 'not found' });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  afterEach(async () => {
    await new Promise((resolve) => server.close(resolve));
    dirs.remove();
  });

  function kubeconfig(): string {
    const path = join(dirs.root, 'kubeconfig');
    const port = (server.address() as AddressInfo).port;
    writeFileSync(
      path,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c', cluster: { server: `http://127.0.0.1:${port}` } }],
        users: [{ name: 'u', user: { token: 'secret-token' } }],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'x',
      }),
    );
    return path;
  }

  it('GETs the claim from resource.k8s.io/v1 with the kubeconfig credentials', async () => {
    const reader = createKubeClaimReader({ access: await loadKubeAccess({ kubeconfig: kubeconfig() }) });
    const claim = await reader.get('ns', 'a');
    expect(claim?.metadata).toEqual({ name: 'a', namespace: 'ns', uid: 'uid-a' });
    expect(claim?.status?.allocation?.devices?.results?.[0]).toEqual({
      request: 'gpu',
      driver: 'gpu.kdp.dev',
      pool: 'node-1',
      device: 'gpu-0',
    });
    expect(requests).toEqual([
      {
        url: '/apis/resource.k8s.io/v1/namespaces/ns/resourceclaims/a',
        authorization: 'Bearer secret-token',
      },
    ]);
  });

  it('answers undefined for 404 and an error naming the status otherwise', async () => {
    const reader = createKubeClaimReader({ access: await loadKubeAccess({ kubeconfig: kubeconfig() }) });
    await expect(reader.get('ns', 'gone')).resolves.toBeUndefined();
    await expect(reader.get('ns', 'forbidden')).rejects.toThrow(
      'GET /apis/resource.k8s.io/v1/namespaces/ns/resourceclaims/forbidden: 403 resourceclaims "forbidden" is forbidden',
    );
  });
});
