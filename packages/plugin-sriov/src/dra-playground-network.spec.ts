import { existsSync, readFileSync } from 'node:fs';
import { resolveCdiDevices } from '@kdp/core/testing';
import { createPlaygroundSession, kubectl, runClaimForStatus, type NetworkClaimJson } from '@kdp/dra/testing';
import { ContainerDevicesAnnotation, type ContainerDevices } from '@kdp/kubelet-sim';
import { sriovPlugin } from './plugin';
import { twoPfPlaygroundMachine } from './testing/playground-machine';
import { fixtureMac } from './testing/sriov-node';

jest.setTimeout(120_000);

const DRIVER = 'sriov.kdp.dev';
const METADATA = `/var/run/kubernetes.io/dra-device-attributes/resourceclaims/vf/net/${DRIVER}-metadata.json`;

// Issue 28, device metadata (KEP 5304 style) and network device status (KEP 4817) for SR-IOV:
// `serve --mode dra --dra-device-metadata`, a claim for a netdevice VF, read back with real kubectl.
const session = createPlaygroundSession({
  plugin: sriovPlugin,
  driver: DRIVER,
  machine: (dir) => twoPfPlaygroundMachine(dir, ['--dra-device-metadata']),
});

describe('sriov-device-plugin serve --mode dra: network status and device metadata in the DRA playground', () => {
  let claim: NetworkClaimJson;
  const kube = (args: string[]): Promise<string> => kubectl(session.started().setup.kubeconfig, args);
  beforeAll(async () => {
    await session.start();
    claim = await runClaimForStatus(session.started().setup, {
      driver: DRIVER,
      name: 'vf',
      selector: `device.attributes["${DRIVER}"].resource == "intel.com/intel_sriov_netdevice"`,
    });
  });
  afterAll(() => session.stop());

  it('writes the VF’s netdev name and MAC into the claim’s status.devices (networkData), read with kubectl', () => {
    const [result] = claim.status?.allocation?.devices.results ?? [];
    const [device] = claim.status?.devices ?? [];
    expect(device).toMatchObject({ driver: DRIVER, pool: result?.pool, device: result?.device });
    expect(device?.conditions).toEqual([expect.objectContaining({ type: 'Ready', status: 'True' })]);
    const netdev = device?.networkData?.interfaceName ?? '';
    expect(netdev).toMatch(/^ens1f0v[0-3]$/);
    expect(device?.networkData?.hardwareAddress).toBe(fixtureMac(netdev));
  });

  it('mounts the claim’s device metadata read-only into the container, and removes it at unprepare', async () => {
    const pod = JSON.parse(await kube(['get', 'pod', 'vf-user', '-o', 'json'])) as {
      metadata: { annotations?: Record<string, string> };
    };
    const annotation = pod.metadata.annotations?.[ContainerDevicesAnnotation] ?? '[]';
    const [container] = JSON.parse(annotation) as ContainerDevices[];
    const mount = resolveCdiDevices(session.started().setup.cdiDir, container?.cdiDevices ?? []).mounts.find(
      (m) => m.containerPath === METADATA,
    );
    expect(mount?.readOnly).toBe(true);
    const hostPath = mount?.hostPath ?? '';
    const metadata = JSON.parse(readFileSync(hostPath, 'utf8')) as Record<string, unknown>;
    const netdev = claim.status?.devices?.[0]?.networkData?.interfaceName ?? '';
    expect(metadata).toMatchObject({
      kind: 'DeviceMetadata',
      metadata: { name: 'vf', namespace: 'default', uid: claim.metadata.uid },
      requests: [
        {
          name: 'net',
          devices: [
            {
              driver: DRIVER,
              device: claim.status?.allocation?.devices.results[0]?.device,
              attributes: expect.objectContaining({
                netdev: { string: netdev },
                pfName: { string: 'ens1f0' },
                'resource.kubernetes.io/pciBusID': expect.objectContaining({}),
              }),
              networkData: { interfaceName: netdev, hardwareAddress: fixtureMac(netdev) },
            },
          ],
        },
      ],
    });
    await kube(['delete', 'pod', 'vf-user', '--wait=false']);
    const deadline = Date.now() + 60_000;
    while (existsSync(hostPath)) {
      if (Date.now() > deadline) throw new Error(`${hostPath} still there after the pod was deleted`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  });
});
