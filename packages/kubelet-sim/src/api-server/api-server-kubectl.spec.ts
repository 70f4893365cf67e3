import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiServer, type ApiServer } from './api-server';
import { recordEvent } from './record-event';
import { writeKubeconfig } from './write-kubeconfig';

/*
 * The real kubectl (v1.35, pinned by tools/kube-tools) against the HTTPS API server, through a kubeconfig from
 * writeKubeconfig: no --validate=false, no --insecure-skip-tls-verify.
 */

jest.setTimeout(180_000);

interface Result {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

const kubectlPath = (): string => {
  const path = process.env['KDP_KUBECTL'];
  if (path === undefined || path === '')
    throw new Error('KDP_KUBECTL is unset: run through packages/kubelet-sim/jest.config.cjs');
  return path;
};

const manifests: Record<string, unknown> = {
  'class.json': {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'DeviceClass',
    metadata: { name: 'gpu' },
    spec: { selectors: [{ cel: { expression: 'device.driver == "gpu.example.com"' } }] },
  },
  'slice.json': {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceSlice',
    metadata: { name: 'node-a-gpu' },
    spec: {
      driver: 'gpu.example.com',
      nodeName: 'node-a',
      pool: { name: 'node-a', generation: 1, resourceSliceCount: 1 },
      devices: [
        { name: 'gpu-0', attributes: { model: { string: 'h100' } }, capacity: { memory: { value: '80Gi' } } },
      ],
    },
  },
  'claim.json': {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceClaim',
    metadata: { name: 'gpus' },
    spec: {
      devices: {
        requests: [
          { name: 'one', exactly: { deviceClassName: 'gpu' } },
          { name: 'any', firstAvailable: [{ name: 'big', deviceClassName: 'gpu' }] },
        ],
      },
    },
  },
  'template.json': {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceClaimTemplate',
    metadata: { name: 'gpu-template' },
    spec: { spec: { devices: { requests: [{ name: 'one', exactly: { deviceClassName: 'gpu' } }] } } },
  },
  'pod.json': {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'trainer' },
    spec: {
      resourceClaims: [{ name: 'gpus', resourceClaimName: 'gpus' }],
      containers: [
        { name: 'main', image: 'busybox', resources: { claims: [{ name: 'gpus', request: 'one' }] } },
      ],
    },
  },
  'node.json': { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-b' } },
  'no-image.json': {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'x' },
    spec: { containers: [{ name: 'c' }] },
  },
  'event.json': {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'trainer.hello' },
    involvedObject: { kind: 'Pod', name: 'trainer', namespace: 'default' },
    reason: 'Hello',
    message: 'from kubectl',
    type: 'Normal',
  },
};

/** The resource, its manifest, the object's name, and a row of the Table `kubectl get` prints. */
const kinds: ReadonlyArray<readonly [string, string, string, RegExp]> = [
  ['deviceclasses', 'class.json', 'gpu', /^gpu\s+\d+s$/m],
  [
    'resourceslices',
    'slice.json',
    'node-a-gpu',
    /^node-a-gpu\s+node-a\s+gpu\.example\.com\s+node-a\s+\d+s$/m,
  ],
  ['resourceclaims', 'claim.json', 'gpus', /^gpus\s+pending\s+\d+s$/m],
  ['resourceclaimtemplates', 'template.json', 'gpu-template', /^gpu-template\s+\d+s$/m],
  ['pods', 'pod.json', 'trainer', /^trainer\s+0\/1\s+Pending\s+0\s+\d+s$/m],
  ['nodes', 'node.json', 'node-b', /^node-b\s+Unknown\s+<none>\s+\d+s\s*$/m],
  ['events', 'event.json', 'trainer.hello', /^\d+s\s+Normal\s+Hello\s+pod\/trainer\s+from kubectl$/m],
];

describe('kubectl v1.35 against the HTTPS API server', () => {
  let server: ApiServer;
  let dir: string;
  // HOME in the temporary directory: kubectl's discovery cache stays out of the user's ~/.kube.
  const kubectlEnv = (): NodeJS.ProcessEnv => ({
    ...process.env,
    HOME: dir,
    KUBECONFIG: join(dir, 'kubeconfig'),
  });
  const kubectl = (...args: string[]): Promise<Result> =>
    new Promise((resolve) => {
      execFile(kubectlPath(), args, { env: kubectlEnv() }, (err, stdout, stderr) => {
        resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, stdout, stderr });
      });
    });
  const ok = async (...args: string[]): Promise<string> => {
    const result = await kubectl(...args);
    if (result.code !== 0 || result.stderr !== '') {
      throw new Error(`kubectl ${args.join(' ')} → ${result.code}\n${result.stderr}${result.stdout}`);
    }
    return result.stdout;
  };
  /** `kubectl patch pod <name> --subresource=status` with a merge patch of its status. */
  const patchStatus = (name: string, status: object): Promise<string> =>
    ok('patch', 'pod', name, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status }));
  const start = async (options: Parameters<typeof createApiServer>[0] = {}): Promise<void> => {
    server = await createApiServer({ tls: true, token: 'secret-token', nodes: ['node-a'], ...options });
    await writeKubeconfig(join(dir, 'kubeconfig'), {
      server: server.url,
      token: 'secret-token',
      caData: server.caData ?? '',
    });
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kubectl-e2e-'));
    for (const [name, body] of Object.entries(manifests))
      await writeFile(join(dir, name), JSON.stringify(body));
  });
  afterEach(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('creates, gets, applies (client and server side), describes and deletes every kind', async () => {
    await start();
    for (const [resource, file, name, row] of kinds) {
      expect(await ok('create', '--save-config', '-f', join(dir, file))).toMatch(
        new RegExp(`${name} created`),
      );
      const json = JSON.parse(await ok('get', resource, name, '-o', 'json')) as {
        metadata: { name: string; uid: string };
      };
      expect(json.metadata.name).toBe(name);
      expect(await ok('get', resource, name, '-o', 'yaml')).toContain(`name: ${name}`);
      expect(await ok('get', resource)).toMatch(row);
      expect(await ok('describe', resource, name)).toMatch(
        new RegExp(`Name:\\s+${name.replace('.', '\\.')}`),
      );
      // Client-side apply over a created object: a strategic merge (or JSON merge) patch, three-way with the
      // last-applied annotation, so a label set by hand stays.
      await ok('label', resource, name, 'stage=one');
      const changed = join(dir, `changed-${file}`);
      const manifest = manifests[file] as { metadata: object };
      await writeFile(
        changed,
        JSON.stringify({ ...manifest, metadata: { ...manifest.metadata, labels: { applied: 'yes' } } }),
      );
      expect(await ok('apply', '-f', changed)).toMatch(/configured/);
      expect(await ok('apply', '-f', changed)).toMatch(/unchanged/);
      const applied = JSON.parse(await ok('get', resource, name, '-o', 'json')) as {
        metadata: { labels: Record<string, string>; annotations: Record<string, string> };
      };
      expect(applied.metadata.labels).toEqual({ applied: 'yes', stage: 'one' });
      expect(
        JSON.parse(applied.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'] ?? '{}'),
      ).toMatchObject({
        metadata: { name, labels: { applied: 'yes' } },
      });
      expect(await ok('apply', '--server-side', '--force-conflicts', '-f', join(dir, file))).toMatch(
        /serverside-applied/,
      );
      expect(await ok('delete', resource, name)).toMatch(/deleted/);
      expect((await kubectl('get', resource, name)).stderr).toContain('NotFound');
    }
  });

  it('applies new objects, shows pod status and events, and watches', async () => {
    await start();
    for (const file of ['class.json', 'claim.json', 'pod.json']) {
      expect(await ok('apply', '--server-side', '-f', join(dir, file))).toMatch(/serverside-applied/);
    }
    expect(await ok('apply', '-f', join(dir, 'template.json'))).toMatch(/created/);
    const table = await ok('get', 'pods');
    expect(table.split('\n')[0]).toMatch(/^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/);
    expect(table).toMatch(/trainer\s+0\/1\s+Pending/);
    expect((await ok('get', 'resourceclaims')).split('\n')[1]).toMatch(/^gpus\s+pending\s+\d+s$/);

    const pod = server.store.get('pods', 'trainer', 'default');
    recordEvent(server.store, {
      involvedObject: { kind: 'Pod', name: 'trainer', namespace: 'default', uid: pod.metadata.uid ?? '' },
      reason: 'FailedScheduling',
      message: 'cannot allocate all claims',
      type: 'Warning',
      source: { component: 'default-scheduler' },
    });
    expect(await ok('describe', 'pod', 'trainer')).toMatch(
      /Warning\s+FailedScheduling\s+.*default-scheduler\s+cannot allocate all claims/,
    );

    const watch = spawn(kubectlPath(), ['get', 'pods', '-w'], {
      env: kubectlEnv(),
    });
    let seen = '';
    const waitFor = (pattern: RegExp): Promise<void> =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          if (pattern.test(seen)) resolve();
        };
        watch.stdout.on('data', (chunk: Buffer) => {
          seen += chunk.toString();
          check();
        });
        watch.on('exit', () => reject(new Error(`kubectl get -w ended: ${seen}`)));
        check();
      });
    try {
      await waitFor(/trainer\s+0\/1\s+Pending/);
      await patchStatus('trainer', { phase: 'Running' });
      await waitFor(/trainer\s+0\/1\s+Running/);
    } finally {
      watch.kill();
    }
    expect(JSON.parse(await ok('get', 'pod', 'trainer', '-o', 'json'))).toMatchObject({
      status: { phase: 'Running' },
    });
    await ok(
      'patch',
      'pod',
      'trainer',
      '--type=json',
      '-p',
      JSON.stringify([{ op: 'add', path: '/metadata/labels', value: { a: 'b' } }]),
    );
    expect(await ok('get', 'pods', '-l', 'a=b', '-o', 'name')).toBe('pod/trainer\n');
  });

  it('waits for a pod condition and for a deletion (a watch list: initial events, then their end BOOKMARK)', async () => {
    await start();
    await ok('create', '-f', join(dir, 'pod.json'));
    expect(JSON.parse(await ok('get', 'pod', 'trainer', '-o', 'json'))).toMatchObject({
      status: { phase: 'Pending', qosClass: 'BestEffort' },
    });
    const ready = kubectl('wait', '--for=condition=Ready', 'pod/trainer', '--timeout=60s');
    await patchStatus('trainer', { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] });
    expect(await ready).toMatchObject({ code: 0, stdout: 'pod/trainer condition met\n' });
    const gone = kubectl('wait', '--for=delete', 'pod/trainer', '--timeout=60s');
    await ok('delete', 'pod', 'trainer', '--wait=false');
    const deleted = await gone;
    expect(deleted.code).toBe(0);
    expect(deleted.stderr).toBe('');
  });

  it('honours --dry-run=server: validated and answered as if written, nothing stored', async () => {
    await start();
    expect(await ok('create', '--dry-run=server', '-f', join(dir, 'pod.json'))).toBe(
      'pod/trainer created (server dry run)\n',
    );
    expect(await ok('apply', '--dry-run=server', '-f', join(dir, 'class.json'))).toBe(
      'deviceclass.resource.k8s.io/gpu created (server dry run)\n',
    );
    expect(await ok('apply', '--server-side', '--dry-run=server', '-f', join(dir, 'claim.json'))).toBe(
      'resourceclaim.resource.k8s.io/gpus serverside-applied (server dry run)\n',
    );
    expect(server.store.list('pods').items).toEqual([]);
    expect(server.store.list('deviceclasses').items).toEqual([]);
    expect(server.store.list('resourceclaims').items).toEqual([]);
    // An invalid object is still refused.
    expect((await kubectl('create', '--dry-run=server', '-f', join(dir, 'no-image.json'))).stderr).toContain(
      'The Pod "x" is invalid: spec.containers[0].image: Required value',
    );
    // On an existing object: apply (a patch) and delete change nothing.
    await ok('create', '-f', join(dir, 'class.json'));
    const before = server.store.get('deviceclasses', 'gpu');
    await ok('label', 'deviceclass', 'gpu', 'x=y', '--dry-run=server');
    expect(await ok('delete', 'deviceclass', 'gpu', '--dry-run=server')).toBe(
      'deviceclass.resource.k8s.io "gpu" deleted (server dry run)\n',
    );
    expect(server.store.get('deviceclasses', 'gpu')).toEqual(before);
  });

  it('reports unknown fields, invalid objects and CEL errors as kube-apiserver does', async () => {
    await start({
      validateCel: (e) =>
        e.endsWith('(') ? 'compilation failed: ERROR: <input>:1:1: Syntax error' : undefined,
    });
    await writeFile(
      join(dir, 'typo.json'),
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'x' },
        spec: { containers: [{ name: 'c', imagee: 'y' }] },
      }),
    );
    const typo = await kubectl('create', '-f', join(dir, 'typo.json'));
    expect(typo.stderr).toContain('strict decoding error: unknown field "spec.containers[0].imagee"');
    const invalid = await kubectl('create', '-f', join(dir, 'typo.json'), '--validate=false');
    expect(invalid.stderr).toContain('The Pod "x" is invalid: spec.containers[0].image: Required value');
    await writeFile(
      join(dir, 'bad-class.json'),
      JSON.stringify({
        ...(manifests['class.json'] as object),
        spec: { selectors: [{ cel: { expression: 'device.driver.startsWith(' } }] },
      }),
    );
    const cel = await kubectl('apply', '--server-side', '-f', join(dir, 'bad-class.json'));
    expect(cel.stderr).toContain(
      'spec.selectors[0].cel.expression: Invalid value: "device.driver.startsWith(": compilation failed',
    );
  });

  it('works against a server that serves resource.k8s.io/v1beta1 only', async () => {
    await start({ resourceApiVersions: ['v1beta1'] });
    await writeFile(
      join(dir, 'claim-beta.json'),
      JSON.stringify({
        apiVersion: 'resource.k8s.io/v1beta1',
        kind: 'ResourceClaim',
        metadata: { name: 'old' },
        spec: { devices: { requests: [{ name: 'one', deviceClassName: 'gpu' }] } },
      }),
    );
    expect(await ok('apply', '-f', join(dir, 'claim-beta.json'))).toMatch(/created/);
    expect(JSON.parse(await ok('get', 'resourceclaims', 'old', '-o', 'json'))).toMatchObject({
      apiVersion: 'resource.k8s.io/v1beta1',
      spec: { devices: { requests: [{ name: 'one', deviceClassName: 'gpu' }] } },
    });
    expect(server.store.get('resourceclaims', 'old', 'default')['spec']).toEqual({
      devices: { requests: [{ name: 'one', exactly: { deviceClassName: 'gpu' } }] },
    });
    // A v1 manifest: no OpenAPI for resource.k8s.io/v1 to validate with, and no such kind to create.
    expect((await kubectl('create', '-f', join(dir, 'claim.json'))).stderr).toContain(
      'error validating data',
    );
    expect((await kubectl('create', '--validate=false', '-f', join(dir, 'claim.json'))).stderr).toContain(
      'no matches for kind "ResourceClaim" in version "resource.k8s.io/v1"',
    );
  });
});
