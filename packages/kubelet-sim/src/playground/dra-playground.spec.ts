import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeKubeconfig } from '../api-server/write-kubeconfig';
import type { FakeDraDriver } from '../dra/fake-dra-driver.fixture';
import { getPodResources } from '../dra/pod-resources-get.fixture';
import { createDraPlayground, type DraPlayground } from './dra-playground';
import type { ContainerDevices } from './container-devices';
import { kubectl, kubectlWatchFor } from './kubectl.fixture';
import { expectTwoRequestsPod, expectUnschedulablePod } from './playground-checks.fixture';
import { startPlaygroundDriver } from './playground-driver.fixture';
import {
  deviceClassManifest,
  oneDeviceClaimManifest,
  onePodManifest,
  testDevices,
  testDriver,
} from './playground-manifests.fixture';
import { ContainerDevicesAnnotation } from './pod-writes';

jest.setTimeout(120_000);

describe('the DRA playground (in-process, real kubectl)', () => {
  let root: string;
  let playground: DraPlayground;
  let driver: FakeDraDriver;
  let kubeconfig: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'ks-playground-'));
    playground = await createDraPlayground({
      pluginsRegistryDir: join(root, 'registry'),
      stateDir: join(root, 'state'),
      nodes: 2,
      cdiDir: join(root, 'cdi'),
      devRoot: join(root, 'dev'),
      podResourcesSocket: join(root, 'podres', 'kubelet.sock'),
      podSyncRetryMs: 100,
    });
    kubeconfig = join(root, 'kubeconfig');
    await writeKubeconfig(kubeconfig, {
      server: playground.url,
      token: playground.token,
      caData: playground.caData,
    });
    // Only the second node has the driver: the scheduler must choose it.
    const second = playground.nodes[1];
    if (second === undefined) throw new Error('no second node');
    const connected = second.sim.waitFor(
      'dra-connection',
      (e) => e.driver === testDriver && e.connected,
      30_000,
    );
    driver = await startPlaygroundDriver({
      driver: testDriver,
      nodeName: second.name,
      registryDir: second.pluginsRegistryDir,
      pluginDir: join(root, 'plugin'),
      cdiDir: join(root, 'cdi'),
      devRoot: join(root, 'dev'),
      api: { url: playground.url, token: playground.token, caData: playground.caData },
      devices: testDevices,
      publish: (slice) => void playground.store.create('resourceslices', slice as never),
    });
    await connected;
  });
  afterAll(async () => {
    await driver.stop();
    await playground.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('runs a pod whose two containers name two requests, each with exactly its devices and env', async () => {
    await expectTwoRequestsPod(kubeconfig, 'kubelet-sim-node-2');
    const podResources = await getPodResources(
      join(root, 'podres', 'kubelet-sim-node-2', 'kubelet.sock'),
      'two-containers',
    );
    expect(
      podResources?.containers.map((c) => [
        c.name,
        c.dynamicResources.map((d) => [d.claimName, d.claimResources.length]),
      ]),
    ).toEqual([
      ['small', [['two-requests', 3]]],
      ['big', [['two-requests', 3]]],
    ]);
  });

  it('leaves a pod whose claim matches nothing Pending with the scheduler’s reason', async () => {
    await expectUnschedulablePod(kubeconfig);
  });

  it('unprepares the claim when the pod is deleted', async () => {
    const node = playground.nodes[1];
    const unprepared = node?.sim.waitFor('dra-unprepared', (e) => e.pod === 'two-containers', 30_000);
    await kubectl(kubeconfig, ['delete', 'pod', 'two-containers', '--wait=false']);
    expect(await unprepared).toMatchObject({ claims: [{ name: 'two-requests' }] });
  });

  it('unprepares, after a kubelet restart, the claim of a pod deleted while the kubelet was down', async () => {
    const node = playground.nodes[1];
    if (node === undefined) throw new Error('no second node');
    const claim = `${oneDeviceClaimManifest('one-device')}---${onePodManifest('gone-while-down', 'one-device')}`;
    await kubectl(kubeconfig, ['apply', '-f', '-'], claim);
    await kubectlWatchFor(kubeconfig, 'pod/gone-while-down', '{.status.phase}', 'Running');
    const unprepared = node.sim.waitFor('dra-unprepared', (e) => e.pod === 'gone-while-down', 30_000);
    // The kubelet stops at once; the pod goes before it serves again, so its deletion never reaches the DRA manager.
    const restarting = node.sim.restart();
    playground.store.delete('pods', 'gone-while-down', { namespace: 'default' });
    await restarting;
    expect(await unprepared).toMatchObject({ claims: [{ name: 'one-device' }] });
    expect(node.sim.draState().claims.map((c) => c.name)).not.toContain('one-device');
  });
});

describe('the DRA playground serving only resource.k8s.io/v1beta1', () => {
  let root: string;
  let playground: DraPlayground;
  let driver: FakeDraDriver | undefined;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'ks-playground-beta-'));
    playground = await createDraPlayground({
      pluginsRegistryDir: join(root, 'registry'),
      stateDir: join(root, 'state'),
      cdiDir: join(root, 'cdi'),
      devRoot: join(root, 'dev'),
      resourceApiVersion: 'v1beta1',
    });
  });
  afterAll(async () => {
    await driver?.stop();
    await playground.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('runs a pod whose claim the kubelet reads through v1beta1', async () => {
    const kubeconfig = join(root, 'kubeconfig');
    await writeKubeconfig(kubeconfig, {
      server: playground.url,
      token: playground.token,
      caData: playground.caData,
    });
    const versions = (await kubectl(kubeconfig, ['api-versions'])).split('\n');
    expect(versions).toContain('resource.k8s.io/v1beta1');
    expect(versions).not.toContain('resource.k8s.io/v1');
    const [node] = playground.nodes;
    if (node === undefined) throw new Error('no node');
    const connected = node.sim.waitFor(
      'dra-connection',
      (e) => e.driver === testDriver && e.connected,
      30_000,
    );
    driver = await startPlaygroundDriver({
      driver: testDriver,
      nodeName: node.name,
      registryDir: node.pluginsRegistryDir,
      pluginDir: join(root, 'plugin'),
      cdiDir: join(root, 'cdi'),
      devRoot: join(root, 'dev'),
      api: {
        url: playground.url,
        token: playground.token,
        caData: playground.caData,
        resourceApiVersion: 'v1beta1',
      },
      devices: testDevices,
      publish: (slice) => void playground.store.create('resourceslices', slice as never),
    });
    await connected;
    await kubectl(
      kubeconfig,
      ['apply', '-f', '-'],
      `${deviceClassManifest('v1beta1')}---
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata:
  name: beta
spec:
  devices:
    requests:
    - name: gpu
      deviceClassName: ${testDriver}
---${onePodManifest('beta', 'beta')}`,
    );
    await kubectlWatchFor(kubeconfig, 'pod/beta', '{.status.phase}', 'Running');
    const pod = JSON.parse(await kubectl(kubeconfig, ['get', 'pod', 'beta', '-o', 'json'])) as {
      metadata: { annotations: Record<string, string> };
    };
    const [main] = JSON.parse(
      pod.metadata.annotations[ContainerDevicesAnnotation] ?? '[]',
    ) as ContainerDevices[];
    expect(main?.cdiDevices).toHaveLength(1);
    expect(main?.env).toHaveLength(1);
  });
});
