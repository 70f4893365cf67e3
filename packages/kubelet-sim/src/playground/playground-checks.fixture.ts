import { kubectl, kubectlWatchFor } from './kubectl.fixture';
import type { ContainerDevices } from './container-devices';
import { matchesNothingManifest, testDriver, twoRequestsManifest } from './playground-manifests.fixture';
import { ContainerDevicesAnnotation } from './pod-writes';

interface PodJson {
  metadata: { annotations?: Record<string, string> };
  spec: { nodeName?: string };
  status: {
    phase: string;
    conditions?: Array<{ type: string; status: string; reason?: string; message?: string }>;
  };
}

/** The two-container pod through kubectl: Running on `node`, each container with exactly its request's devices and env. */
export async function expectTwoRequestsPod(kubeconfig: string, node: string): Promise<void> {
  await kubectl(kubeconfig, ['apply', '-f', '-'], twoRequestsManifest);
  await kubectlWatchFor(kubeconfig, 'pod/two-containers', '{.status.phase}', 'Running');
  const pod = JSON.parse(
    await kubectl(kubeconfig, ['get', 'pod', 'two-containers', '-o', 'json']),
  ) as PodJson;
  expect(pod.spec.nodeName).toBe(node);
  expect(await kubectl(kubeconfig, ['get', 'pod', 'two-containers', '-o', 'yaml'])).toContain(
    `${ContainerDevicesAnnotation}:`,
  );
  const claim = JSON.parse(
    await kubectl(kubeconfig, ['get', 'resourceclaim', 'two-requests', '-o', 'json']),
  ) as {
    metadata: { uid: string };
    status: { allocation: { devices: { results: Array<{ request: string; device: string }> } } };
  };
  const results = claim.status.allocation.devices.results;
  const small = results.filter((r) => r.request === 'small').map((r) => r.device);
  expect(results.filter((r) => r.request === 'big/large').map((r) => r.device)).toEqual([
    'large-0',
    'large-1',
  ]);
  expect(small).toHaveLength(1);
  const devices = JSON.parse(
    pod.metadata.annotations?.[ContainerDevicesAnnotation] ?? '[]',
  ) as ContainerDevices[];
  const kind = `k8s.${testDriver}/device`;
  const uid = claim.metadata.uid;
  expect(devices.map((c) => [c.name, c.cdiDevices, c.deviceNodes.map((d) => d.path), c.env])).toEqual([
    [
      'small',
      [`${kind}=${uid}-${small[0]}`],
      [`/dev/${small[0]}`],
      [`DEVICE_${String(small[0]).toUpperCase().replace('-', '_')}=1`],
    ],
    [
      'big',
      [`${kind}=${uid}-large-0`, `${kind}=${uid}-large-1`],
      ['/dev/large-0', '/dev/large-1'],
      ['DEVICE_LARGE_0=1', 'DEVICE_LARGE_1=1'],
    ],
  ]);
  expect(
    pod.status.conditions
      ?.filter((c) => c.status === 'True')
      .map((c) => c.type)
      .sort(),
  ).toEqual(['ContainersReady', 'Initialized', 'PodReadyToStartContainers', 'PodScheduled', 'Ready']);
}

/** A claim no device matches: the pod stays Pending with the scheduler's reason, visible through kubectl. */
export async function expectUnschedulablePod(kubeconfig: string): Promise<void> {
  await kubectl(kubeconfig, ['apply', '-f', '-'], matchesNothingManifest);
  await kubectlWatchFor(
    kubeconfig,
    'pod/stuck',
    '{.status.conditions[?(@.type=="PodScheduled")].status}',
    'False',
  );
  const pod = JSON.parse(await kubectl(kubeconfig, ['get', 'pod', 'stuck', '-o', 'json'])) as PodJson;
  // Pending: kube-apiserver writes `phase: Pending` at create; kubelet-sim's API server leaves it unset until a
  // kubelet writes the status, and no kubelet has this pod.
  expect([undefined, 'Pending']).toContain(pod.status.phase);
  expect(pod.spec.nodeName).toBeUndefined();
  const scheduled = pod.status.conditions?.find((c) => c.type === 'PodScheduled');
  expect(scheduled).toMatchObject({ status: 'False', reason: 'Unschedulable' });
  expect(scheduled?.message).toMatch(/^0\/2 nodes are available: .*cannot allocate all claims/);
  expect(await kubectl(kubeconfig, ['get', 'pod', 'stuck', '-o', 'yaml'])).toContain('reason: Unschedulable');
}
