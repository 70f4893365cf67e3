import { createServer, type Server } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { createKubeClaimReader } from './claim-reader';
import { loadKubeAccess } from './load-kube-access';
import { allocatedClaim, createTestDirs } from './dra-test.fixture';
import { createFakeResourceApi } from './resource-api-fake.fixture';

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
      if (req.url === '/apis/resource.k8s.io')
        return send(200, {
          kind: 'APIGroup',
          versions: [{ groupVersion: 'resource.k8s.io/v1', version: 'v1' }],
        });
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
      { url: '/apis/resource.k8s.io', authorization: 'Bearer secret-token' },
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

describe('createKubeClaimReader on older API servers', () => {
  /** A claim as Kubernetes 1.32 stores it: v1beta1 requests without `exactly`, a prioritized list alike. */
  const v1beta1Claim = {
    apiVersion: 'resource.k8s.io/v1beta1',
    kind: 'ResourceClaim',
    metadata: { name: 'a', namespace: 'ns', uid: 'uid-a' },
    spec: {
      devices: {
        requests: [
          {
            name: 'gpu',
            deviceClassName: 'gpu.kdp.dev',
            selectors: [{ cel: { expression: 'device.attributes["gpu.kdp.dev"].index == 0' } }],
            allocationMode: 'ExactCount',
            count: 1,
            adminAccess: false,
          },
          { name: 'any', firstAvailable: [{ name: 'big', deviceClassName: 'gpu.kdp.dev', count: 2 }] },
        ],
      },
    },
    status: allocatedClaim('a', 'uid-a', [{ device: 'gpu-0' }], { namespace: 'ns' }).status,
  };

  it.each(['v1beta1', 'v1beta2'])(
    'reads a claim from a server serving %s only, in the v1 shape',
    async (version) => {
      const api = await createFakeResourceApi([version]);
      try {
        api.putClaim(version, v1beta1Claim);
        const reader = createKubeClaimReader({ access: { server: api.url } });
        const claim = await reader.get('ns', 'a');
        expect(api.requests).toEqual([
          'GET /apis/resource.k8s.io',
          `GET /apis/resource.k8s.io/${version}/namespaces/ns/resourceclaims/a`,
        ]);
        expect(claim?.status).toEqual(v1beta1Claim.status);
        const requests = (claim as unknown as { spec: { devices: { requests: unknown[] } } }).spec.devices
          .requests;
        // v1beta2 is v1's shape already: what it holds is read as it is.
        expect(requests[0]).toEqual(
          version === 'v1beta2'
            ? v1beta1Claim.spec.devices.requests[0]
            : {
                name: 'gpu',
                exactly: {
                  deviceClassName: 'gpu.kdp.dev',
                  selectors: [{ cel: { expression: 'device.attributes["gpu.kdp.dev"].index == 0' } }],
                  allocationMode: 'ExactCount',
                  count: 1,
                  adminAccess: false,
                },
              },
        );
        expect(requests[1]).toEqual(v1beta1Claim.spec.devices.requests[1]);
      } finally {
        await api.close();
      }
    },
  );

  it('discovers again on a 404 and reads the claim in the version now served; a missing claim stays undefined', async () => {
    const api = await createFakeResourceApi(['v1', 'v1beta1']);
    try {
      api.putClaim('v1beta1', v1beta1Claim);
      const reader = createKubeClaimReader({ access: { server: api.url } });
      await expect(reader.get('ns', 'gone')).resolves.toBeUndefined();
      api.versions = ['v1beta1'];
      const claim = await reader.get('ns', 'a');
      expect(claim?.metadata.uid).toBe('uid-a');
      expect(JSON.stringify(claim)).toContain('"exactly":{"deviceClassName":"gpu.kdp.dev"');
      await expect(reader.get('ns', 'gone')).resolves.toBeUndefined();
      expect(api.requests).toEqual([
        'GET /apis/resource.k8s.io',
        'GET /apis/resource.k8s.io/v1/namespaces/ns/resourceclaims/gone',
        'GET /apis/resource.k8s.io',
        'GET /apis/resource.k8s.io/v1/namespaces/ns/resourceclaims/a',
        'GET /apis/resource.k8s.io',
        'GET /apis/resource.k8s.io/v1beta1/namespaces/ns/resourceclaims/a',
        'GET /apis/resource.k8s.io/v1beta1/namespaces/ns/resourceclaims/gone',
        'GET /apis/resource.k8s.io',
      ]);
    } finally {
      await api.close();
    }
  });
});
