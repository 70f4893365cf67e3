import { deepStrictEqual, ok, strictEqual } from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { resolveCdiDevices } from '@kdp/core/testing';
import { ContainerDevicesAnnotation, type ContainerDevices } from '@kdp/kubelet-sim';
import type { PlaygroundDriver } from './start-playground-driver';

/** What the pod checks need to know of a driver beyond its playground. */
export interface PlaygroundPodCheckOptions {
  /** The DRA driver name; the DeviceClass has this name too. */
  readonly driver: string;
  /**
   * A CEL selector on a real attribute of the driver's devices that some device on the node meets (the `first`
   * request's selector), picking devices with device nodes; e.g. `device.attributes["gpu.kdp.dev"].model == "…"`.
   */
  readonly selector: string;
  /** The fixture's /dev, where every CDI device node of a container must exist. */
  readonly devRoot: string;
}

/** Runs the pinned kubectl (`KDP_KUBECTL`, set by the jest globalSetup); resolves with stdout, rejects unless 0. */
export function kubectl(kubeconfig: string, args: readonly string[], stdin = ''): Promise<string> {
  const path = process.env['KDP_KUBECTL'];
  if (path === undefined || path === '')
    return Promise.reject(new Error('KDP_KUBECTL is unset: add tools/kube-tools/jest-global-setup.cjs'));
  return new Promise((resolve, reject) => {
    const child = spawn(path, ['--kubeconfig', kubeconfig, ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: 60_000,
      env: { ...process.env, HOME: dirname(kubeconfig) },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(stdout)
        : reject(new Error(`kubectl ${args.join(' ')} exited ${String(code)}:\n${stderr}${stdout}`)),
    );
    child.stdin.end(stdin);
  });
}

/** A claim's request `name` of one device of the driver's DeviceClass, picked by a CEL selector (YAML). */
export const claimRequest = (name: string, selector: string, driver: string): string => `
    - name: ${name}
      exactly:
        deviceClassName: ${driver}
        selectors:
        - cel:
            expression: '${selector}'`;

/** The `second` request: `firstAvailable`, a subrequest nothing meets, then any one device of the class. */
const firstAvailableRequest = (driver: string): string => `
    - name: second
      firstAvailable:
      - name: none
        deviceClassName: ${driver}
        selectors:
        - cel:
            expression: 'device.driver == "none.example.com"'
      - name: any
        deviceClassName: ${driver}`;

/** A ResourceClaim `name` with the requests given as YAML ({@link claimRequest}). */
export const claimManifest = (name: string, requests: string): string => `
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: ${name}
spec:
  devices:
    requests:${requests}
`;

/** A pod `name` using the claims by their names; a container per `[claim, request]`, named after the request. */
export const podManifest = (
  name: string,
  claims: readonly string[],
  containers: readonly [string, string][],
): string => `
apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  resourceClaims:${claims.map((c) => `\n  - name: ${c}\n    resourceClaimName: ${c}`).join('')}
  containers:${containers
    .map(
      ([claim, request]) => `
  - name: ${request}
    image: registry.k8s.io/pause:3.10
    resources:
      claims:
      - name: ${claim}
        request: ${request}`,
    )
    .join('')}
`;

/** A DeviceClass named after the driver, selecting its devices by CEL. */
export const deviceClassManifest = (driver: string): string => `
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: ${driver}
spec:
  selectors:
  - cel:
      expression: device.driver == "${driver}"
`;

interface PodJson {
  metadata: { annotations?: Record<string, string> };
  spec: { nodeName?: string };
  status: {
    phase?: string;
    conditions?: Array<{ type: string; status: string; reason?: string; message?: string }>;
  };
}

interface ClaimJson {
  metadata: { uid: string };
  status?: {
    allocation?: { devices: { results: Array<{ request: string; device: string; driver: string }> } };
  };
}

const getJson = async <T>(kubeconfig: string, kind: string, name: string): Promise<T> =>
  JSON.parse(await kubectl(kubeconfig, ['get', kind, name, '-o', 'json'])) as T;

/** Polls `kubectl get pod` until `done` accepts it; rejects with the last pod after `timeoutMs`. */
async function waitForPod(
  kubeconfig: string,
  name: string,
  done: (pod: PodJson) => boolean,
  timeoutMs = 60_000,
): Promise<PodJson> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pod = await getJson<PodJson>(kubeconfig, 'pod', name);
    if (done(pod)) return pod;
    if (Date.now() > deadline)
      throw new Error(`pod ${name} not as expected in time:\n${JSON.stringify(pod)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Applies, with real kubectl, a DeviceClass for the driver, a claim with request `first` (a CEL selector on a
 * real attribute) and request `second` (a `firstAvailable` list whose first subrequest matches nothing), and a
 * pod whose two containers name one request each. Checks the
 * pod is Running on the driver's node and each container got exactly its request's CDI devices, whose device
 * nodes exist on the fixture's /dev (`first` has some), and only those devices' env.
 */
export async function checkTwoRequestsPod(
  setup: PlaygroundDriver,
  options: PlaygroundPodCheckOptions,
): Promise<void> {
  const { kubeconfig } = setup;
  const { driver } = options;
  const requests = claimRequest('first', options.selector, driver) + firstAvailableRequest(driver);
  const containers: [string, string][] = [
    ['two-requests', 'first'],
    ['two-requests', 'second'],
  ];
  await kubectl(
    kubeconfig,
    ['apply', '-f', '-'],
    [
      deviceClassManifest(driver),
      claimManifest('two-requests', requests),
      podManifest('two-containers', ['two-requests'], containers),
    ].join('---'),
  );
  const pod = await waitForPod(kubeconfig, 'two-containers', (p) => p.status.phase === 'Running');
  strictEqual(pod.spec.nodeName, setup.nodeName);
  const annotation = pod.metadata.annotations?.[ContainerDevicesAnnotation];
  ok(annotation !== undefined, `pod has no ${ContainerDevicesAnnotation} annotation`);
  const got = JSON.parse(annotation) as ContainerDevices[];
  deepStrictEqual(
    got.map((c) => c.name),
    ['first', 'second'],
  );
  for (const [claimName, request] of containers) {
    const claim = await getJson<ClaimJson>(kubeconfig, 'resourceclaim', claimName);
    const results = claim.status?.allocation?.devices.results ?? [];
    const expectedRequest = request === 'second' ? 'second/any' : 'first';
    const devices = results.filter((r) => r.request === expectedRequest).map((r) => r.device);
    strictEqual(devices.length, 1, `claim ${claimName}: no one device for ${expectedRequest}`);
    const container = got.find((c) => c.name === request);
    ok(container !== undefined);
    // Per-device CDI: the container's CDI IDs are its request's devices', none of the other request's.
    deepStrictEqual(
      container.cdiDevices.map((id) => id.split('=')[1]),
      devices.map((d) => `${claim.metadata.uid}-${d}`),
      `container ${request}: CDI devices ${container.cdiDevices.join(', ')}`,
    );
    // The selected device has device nodes; any device (`second`) may have none (a netdevice VF).
    if (request === 'first') ok(container.deviceNodes.length > 0, `container first has no device nodes`);
    for (const node of container.deviceNodes) {
      ok(node.path.startsWith('/dev/'), `device node ${node.path} outside /dev`);
      ok(
        existsSync(join(options.devRoot, node.path.slice('/dev/'.length))),
        `no ${node.path} on the fixture`,
      );
    }
    // Only its devices' env: what the CDI specs give exactly its CDI devices.
    deepStrictEqual(
      [...container.env].sort(),
      [...resolveCdiDevices(setup.cdiDir, container.cdiDevices).env].sort(),
      `container ${request}: env`,
    );
  }
  const [first, second] = got;
  const leaked = first?.env.filter((e) => second?.env.includes(e) && !e.endsWith('=void')) ?? [];
  deepStrictEqual(leaked, [], 'env given to both containers');
}

/** A claim no device meets: its pod stays Pending, PodScheduled False with the scheduler's reason and message. */
export async function checkUnschedulablePod(
  setup: PlaygroundDriver,
  options: PlaygroundPodCheckOptions,
): Promise<void> {
  const { kubeconfig } = setup;
  await kubectl(
    kubeconfig,
    ['apply', '-f', '-'],
    [
      deviceClassManifest(options.driver),
      claimManifest(
        'matches-nothing',
        claimRequest('first', `${options.selector} && device.driver == "none.example.com"`, options.driver),
      ),
      podManifest('stuck', ['matches-nothing'], [['matches-nothing', 'first']]),
    ].join('---'),
  );
  const pod = await waitForPod(kubeconfig, 'stuck', (p) =>
    (p.status.conditions ?? []).some((c) => c.type === 'PodScheduled' && c.status === 'False'),
  );
  ok(pod.status.phase === undefined || pod.status.phase === 'Pending', `phase ${String(pod.status.phase)}`);
  strictEqual(pod.spec.nodeName, undefined);
  const scheduled = pod.status.conditions?.find((c) => c.type === 'PodScheduled');
  strictEqual(scheduled?.reason, 'Unschedulable');
  ok(
    /^0\/2 nodes are available: .*cannot allocate all claims/.test(scheduled.message ?? ''),
    `PodScheduled message: ${String(scheduled.message)}`,
  );
}
