import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BinaryReader, BinaryWriter } from '@bufbuild/protobuf/wire';
import {
  AllocateRequest,
  AllocateResponse,
  CDIDevice,
  ContainerAllocateRequest,
  ContainerAllocateResponse,
  ContainerPreferredAllocationRequest,
  ContainerPreferredAllocationResponse,
  Device,
  DevicePluginOptions,
  DeviceSpec,
  Empty,
  ListAndWatchResponse,
  Mount,
  NUMANode,
  PreferredAllocationRequest,
  PreferredAllocationResponse,
  PreStartContainerRequest,
  PreStartContainerResponse,
  RegisterRequest,
  TopologyInfo,
  draHealthV1,
  draHealthV1alpha1,
  draV1,
  draV1beta1,
  pluginregistration,
  podresources,
  v1alpha,
} from './index';

// Golden wire tests: every message our generated code encodes must equal, byte for byte, what protoc
// (an independent encoder) produces from the text-format message kept beside the .bin file.
// Regenerate the .bin files with `node tools/proto/golden.mjs`.

interface Codec<T> {
  encode(message: T, writer?: BinaryWriter): BinaryWriter;
  decode(input: BinaryReader | Uint8Array, length?: number): T;
  fromPartial(object: never): T;
}

interface GoldenCase {
  codec: Codec<unknown>;
  value: unknown;
}

function golden<T>(codec: Codec<T>, value: T): GoldenCase {
  return { codec: codec as Codec<unknown>, value };
}

const gpu0 = 'GPU-3f1c8a52-1b0e-4c6f-9d2e-7a5b8c9d0e1f';
const gpu1 = 'GPU-8c2d4e6f-0a1b-4c3d-8e5f-6a7b8c9d0e1f';
const gpu2 = 'GPU-9e3f5a7b-1c2d-4e5f-8a9b-0c1d2e3f4a5b';
const claimUid = '5f0c2a1e-8d3b-4c7a-9e21-6b4f0d8a7c13';
const usbClaimUid = 'a93e7b40-1c5d-4f8e-b2a6-0d7c9e3f1b58';
const gpuClaim = { namespace: 'ml', uid: claimUid, name: 'trainer-0-gpu' };
const usbClaim = { namespace: 'default', uid: usbClaimUid, name: 'usb-claim' };
const gpuCdiId = `k8s.gpu.kdp.dev/claim=${claimUid}-gpu-0`;

/** The same health messages in both health APIs (v1alpha1 and v1 differ only in their package). */
function healthCases(
  prefix: string,
  api: typeof draHealthV1alpha1 | typeof draHealthV1,
): Record<string, GoldenCase> {
  const { HealthStatus } = api;
  return {
    [`${prefix}.NodeWatchResourcesRequest`]: golden(api.NodeWatchResourcesRequest, {}),
    [`${prefix}.NodeWatchResourcesResponse`]: golden(api.NodeWatchResourcesResponse, {
      devices: [
        {
          device: { poolName: 'node-a', deviceName: 'gpu-0' },
          health: HealthStatus.HEALTHY,
          lastUpdatedTime: 1795000000,
          healthCheckTimeoutSeconds: 60,
          message: '',
        },
        {
          device: { poolName: 'node-a', deviceName: 'gpu-1' },
          health: HealthStatus.UNHEALTHY,
          lastUpdatedTime: 1795000012,
          // Negative: "treated as if not specified" by the kubelet, but a ten-byte varint on the wire.
          healthCheckTimeoutSeconds: -1,
          message: 'XID 79: GPU has fallen off the bus',
        },
        {
          device: { poolName: 'node-a', deviceName: 'gpu-2' },
          health: HealthStatus.UNKNOWN,
          lastUpdatedTime: 0,
          healthCheckTimeoutSeconds: 0,
          message: '',
        },
      ],
    }),
    [`${prefix}.DeviceHealth`]: golden(api.DeviceHealth, {
      device: { poolName: 'node-b', deviceName: 'usb-1-4' },
      health: HealthStatus.UNHEALTHY,
      lastUpdatedTime: 1795000000,
      healthCheckTimeoutSeconds: 30,
      message: 'device disconnected',
    }),
  };
}

const cases: Record<string, GoldenCase> = {
  'v1beta1.DevicePluginOptions': golden(DevicePluginOptions, {
    preStartRequired: true,
    getPreferredAllocationAvailable: true,
  }),
  'v1beta1.RegisterRequest': golden(RegisterRequest, {
    version: 'v1beta1',
    endpoint: 'nvidia.com-gpu-4f2a91c0.sock',
    resourceName: 'nvidia.com/gpu',
    options: { preStartRequired: true, getPreferredAllocationAvailable: true },
  }),
  'v1beta1.Empty': golden(Empty, {}),
  'v1beta1.PreStartContainerResponse': golden(PreStartContainerResponse, {}),
  'v1beta1.ListAndWatchResponse': golden(ListAndWatchResponse, {
    devices: [
      { ID: gpu0, health: 'Healthy', topology: { nodes: [{ ID: 0 }] } },
      { ID: gpu1, health: 'Unhealthy', topology: { nodes: [{ ID: 1 }, { ID: 3 }] } },
    ],
  }),
  'v1beta1.TopologyInfo': golden(TopologyInfo, { nodes: [{ ID: 0 }, { ID: 7 }] }),
  'v1beta1.NUMANode': golden(NUMANode, { ID: 1099511627776 }),
  'v1beta1.Device': golden(Device, {
    ID: '0000:3b:02.1',
    health: 'Healthy',
    topology: { nodes: [{ ID: 1 }] },
  }),
  'v1beta1.PreStartContainerRequest': golden(PreStartContainerRequest, { devicesIds: ['af-0', 'af-1'] }),
  'v1beta1.PreferredAllocationRequest': golden(PreferredAllocationRequest, {
    containerRequests: [
      {
        availableDeviceIDs: ['dev-0', 'dev-1', 'dev-2', 'dev-3'],
        mustIncludeDeviceIDs: ['dev-2'],
        allocationSize: 2,
      },
    ],
  }),
  'v1beta1.ContainerPreferredAllocationRequest': golden(ContainerPreferredAllocationRequest, {
    availableDeviceIDs: ['a', 'b'],
    mustIncludeDeviceIDs: ['a'],
    allocationSize: 2,
  }),
  'v1beta1.PreferredAllocationResponse': golden(PreferredAllocationResponse, {
    containerResponses: [{ deviceIDs: ['dev-2', 'dev-3'] }],
  }),
  'v1beta1.ContainerPreferredAllocationResponse': golden(ContainerPreferredAllocationResponse, {
    deviceIDs: ['usb-1-4.2', 'usb-1-4.3'],
  }),
  'v1beta1.AllocateRequest': golden(AllocateRequest, {
    containerRequests: [{ devicesIds: [gpu0] }, { devicesIds: [gpu1, gpu2] }],
  }),
  'v1beta1.ContainerAllocateRequest': golden(ContainerAllocateRequest, { devicesIds: ['mlx5_0', 'mlx5_1'] }),
  'v1beta1.CDIDevice': golden(CDIDevice, { name: `nvidia.com/gpu=${gpu0}` }),
  'v1beta1.AllocateResponse': golden(AllocateResponse, {
    containerResponses: [
      {
        envs: { NVIDIA_VISIBLE_DEVICES: gpu0, KDP_DEVICE_IDS: gpu0 },
        mounts: [
          {
            containerPath: '/usr/local/nvidia/lib64',
            hostPath: '/usr/lib/x86_64-linux-gnu/nvidia',
            readOnly: true,
          },
        ],
        devices: [
          { containerPath: '/dev/nvidia0', hostPath: '/dev/nvidia0', permissions: 'rw' },
          { containerPath: '/dev/nvidiactl', hostPath: '/dev/nvidiactl', permissions: 'rwm' },
        ],
        annotations: { 'cdi.k8s.io/kdp': `nvidia.com/gpu=${gpu0}`, 'kdp.io/numa-nodes': '0' },
        cdiDevices: [{ name: `nvidia.com/gpu=${gpu0}` }, { name: 'nvidia.com/gpu=all' }],
      },
      {
        envs: { PCIDEVICE_INTEL_COM_SRIOV_NETDEVICE: '0000:3b:02.1' },
        mounts: [],
        devices: [{ containerPath: '/dev/vfio/vfio', hostPath: '/dev/vfio/vfio', permissions: 'rw' }],
        annotations: {},
        cdiDevices: [],
      },
    ],
  }),
  'v1beta1.ContainerAllocateResponse': golden(ContainerAllocateResponse, {
    envs: { USB_DEVICE_PATH: '/dev/bus/usb/001/004' },
    mounts: [{ containerPath: '/etc/kdp/device', hostPath: '/var/lib/kdp/device', readOnly: true }],
    devices: [{ containerPath: '/dev/ttyUSB0', hostPath: '/dev/ttyUSB0', permissions: 'rw' }],
    annotations: { 'kdp.io/device': 'usb-1-4.2' },
    cdiDevices: [{ name: 'example.com/usb=usb-1-4.2' }],
  }),
  'v1beta1.Mount': golden(Mount, { containerPath: '/run/kdp', hostPath: '/var/run/kdp', readOnly: true }),
  'v1beta1.DeviceSpec': golden(DeviceSpec, {
    containerPath: '/dev/infiniband/uverbs0',
    hostPath: '/dev/infiniband/uverbs0',
    permissions: 'rw',
  }),
  'v1.ListPodResourcesResponse': golden(podresources.ListPodResourcesResponse, {
    podResources: [
      {
        name: 'trainer-0',
        namespace: 'ml',
        containers: [
          {
            name: 'main',
            devices: [
              { resourceName: 'nvidia.com/gpu', deviceIds: [gpu0], topology: { nodes: [{ ID: 0 }] } },
              {
                resourceName: 'intel.com/sriov_netdevice',
                deviceIds: ['0000:3b:02.1', '0000:3b:02.2'],
                topology: { nodes: [{ ID: 1 }] },
              },
            ],
            cpuIds: [2, 3],
            memory: [{ memoryType: 'memory', size: 68719476736, topology: { nodes: [{ ID: 0 }] } }],
            dynamicResources: [
              {
                claimName: 'gpu-claim',
                claimNamespace: 'ml',
                claimResources: [
                  {
                    cdiDevices: [{ name: 'gpu.example.com/gpu=gpu-0' }],
                    driverName: 'gpu.example.com',
                    poolName: 'node-a',
                    deviceName: 'gpu-0',
                    shareId: 'share-7',
                  },
                ],
              },
            ],
          },
        ],
        cpuIds: [4],
        memory: [{ memoryType: 'hugepages-1Gi', size: 2147483648, topology: { nodes: [{ ID: 1 }] } }],
      },
    ],
  }),
  'deviceplugin.AllocateResponse': golden(v1alpha.AllocateResponse, {
    envs: { LEGACY_DEVICE: 'dev-0' },
    mounts: [{ containerPath: '/opt/legacy', hostPath: '/opt/legacy', readOnly: true }],
    devices: [{ containerPath: '/dev/legacy0', hostPath: '/dev/legacy0', permissions: 'rw' }],
    annotations: { 'legacy.example.com/id': 'dev-0' },
  }),
  'pluginregistration.PluginInfo': golden(pluginregistration.PluginInfo, {
    type: 'DevicePlugin',
    name: 'intel.com/sriov_netdevice',
    endpoint: '/var/lib/kubelet/plugins_registry/intel.com-sriov_netdevice-4f2a91c0.sock',
    supportedVersions: ['v1beta1'],
  }),
  // DRA v1: every message.
  'dra.v1.Claim': golden(draV1.Claim, gpuClaim),
  'dra.v1.NodePrepareResourcesRequest': golden(draV1.NodePrepareResourcesRequest, {
    claims: [gpuClaim, usbClaim],
  }),
  'dra.v1.Device': golden(draV1.Device, {
    requestNames: ['gpu', 'gpus/large'],
    poolName: 'node-a',
    deviceName: 'gpu-0',
    cdiDeviceIds: [gpuCdiId, `nvidia.com/gpu=${gpu0}`],
    shareId: '8c2d4e6f-0a1b-4c3d-8e5f-6a7b8c9d0e1f',
  }),
  'dra.v1.NodePrepareResourceResponse': golden(draV1.NodePrepareResourceResponse, {
    devices: [
      {
        requestNames: [],
        poolName: 'node-a',
        deviceName: 'usb-1-4',
        cdiDeviceIds: [`k8s.usb.kdp.dev/claim=${usbClaimUid}-usb-1-4`],
        shareId: undefined,
      },
    ],
    error: 'claim default/usb-claim: not allocated on node node-a',
  }),
  'dra.v1.NodePrepareResourcesResponse': golden(draV1.NodePrepareResourcesResponse, {
    claims: {
      [claimUid]: {
        devices: [
          // share_id is proto3 `optional`: an empty string is present on the wire (field 5, length 0).
          {
            requestNames: ['gpu'],
            poolName: 'node-a',
            deviceName: 'gpu-0',
            cdiDeviceIds: [gpuCdiId],
            shareId: '',
          },
          { requestNames: [], poolName: 'node-a', deviceName: 'gpu-1', cdiDeviceIds: [], shareId: undefined },
        ],
        error: '',
      },
      [usbClaimUid]: { devices: [], error: 'ResourceClaim default/usb-claim: UID mismatch' },
    },
  }),
  'dra.v1.NodeUnprepareResourcesRequest': golden(draV1.NodeUnprepareResourcesRequest, { claims: [gpuClaim] }),
  'dra.v1.NodeUnprepareResourcesResponse': golden(draV1.NodeUnprepareResourcesResponse, {
    claims: { [claimUid]: { error: '' }, [usbClaimUid]: { error: 'remove CDI spec: permission denied' } },
  }),
  'dra.v1.NodeUnprepareResourceResponse': golden(draV1.NodeUnprepareResourceResponse, {
    error: 'remove CDI spec: permission denied',
  }),
  // DRA v1beta1: the same messages without Device.share_id.
  'dra.v1beta1.NodePrepareResourcesResponse': golden(draV1beta1.NodePrepareResourcesResponse, {
    claims: {
      [claimUid]: {
        devices: [
          { requestNames: ['gpu'], poolName: 'node-a', deviceName: 'gpu-0', cdiDeviceIds: [gpuCdiId] },
        ],
        error: '',
      },
      [usbClaimUid]: { devices: [], error: 'not allocated' },
    },
  }),
  'dra.v1beta1.NodeUnprepareResourcesRequest': golden(draV1beta1.NodeUnprepareResourcesRequest, {
    claims: [usbClaim],
  }),
  ...healthCases('dra-health.v1alpha1', draHealthV1alpha1),
  ...healthCases('dra-health.v1', draHealthV1),
};

const root = join(__dirname, '../../..');
const goldenDir = join(__dirname, '../testdata/golden');
const goldenFile = (name: string, ext: 'bin' | 'txtpb'): string => join(goldenDir, `${name}.${ext}`);

/** True when a field holds something other than its proto3 default. */
function isSet(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (value !== null && typeof value === 'object') return Object.keys(value).length > 0;
  return value !== '' && value !== 0 && value !== false && value !== undefined;
}

describe('golden wire files', () => {
  it('exist for every device-plugin v1beta1 and DRA v1 message of the protos, and for nothing else', () => {
    const proto = readFileSync(join(root, 'proto/deviceplugin/v1beta1/api.proto'), 'utf8');
    const messages = [...proto.matchAll(/^message (\w+)/gm)].map((m) => `v1beta1.${m[1]}`).sort();
    const goldens = readdirSync(goldenDir)
      .filter((f) => f.startsWith('v1beta1.') && f.endsWith('.txtpb'))
      .map((f) => f.replace(/\.txtpb$/, ''))
      .sort();
    expect(goldens).toEqual(messages);
    const draProto = readFileSync(join(root, 'proto/dra/v1/api.proto'), 'utf8');
    const draMessages = [...draProto.matchAll(/^message (\w+)/gm)].map((m) => `dra.v1.${m[1]}`).sort();
    const draGoldens = readdirSync(goldenDir)
      .filter((f) => f.startsWith('dra.v1.') && f.endsWith('.txtpb'))
      .map((f) => f.replace(/\.txtpb$/, ''))
      .sort();
    expect(draGoldens).toEqual(draMessages);
    const allGoldens = readdirSync(goldenDir).filter((f) => f.endsWith('.txtpb'));
    expect(Object.keys(cases).sort()).toEqual(allGoldens.map((f) => f.replace(/\.txtpb$/, '')).sort());
  });

  describe.each(Object.entries(cases))('%s', (name, { codec, value }) => {
    const bytes = readFileSync(goldenFile(name, 'bin'));

    it('encodes to exactly the golden bytes', () => {
      expect(Buffer.from(codec.encode(value).finish())).toEqual(bytes);
    });

    it('decodes the golden bytes to every expected field', () => {
      expect(codec.decode(bytes)).toEqual(value);
    });

    it('sets every field of its message, so no field goes untested', () => {
      const fields = Object.keys(codec.fromPartial({} as never) as object);
      const unset = fields.filter((f) => !isSet((value as Record<string, unknown>)[f]));
      expect(unset).toEqual([]);
    });

    it('matches what protoc encodes from the text format with the current proto', () => {
      const fresh = execFileSync(process.execPath, [join(root, 'tools/proto/golden.mjs'), '--check', name], {
        cwd: root,
        stdio: 'pipe',
      });
      expect(fresh.toString()).toBe('');
    });
  });
});
