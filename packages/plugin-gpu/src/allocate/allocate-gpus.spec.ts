import { Code, type PluginDevice } from '@kdp/core';
import type { SysfsFixture } from '@kdp/topology/testing';
import type { GpuPayload } from '../resources/gpu-payload';
import { fixtureDevices, gpuConfig } from '../testing/fixture-devices';
import {
  AMD_GPUS,
  buildAmdMachine,
  buildIntelMachine,
  buildNvidiaMachine,
  INTEL_GPUS,
  NVIDIA_UUIDS,
} from '../testing/machines';
import { allocateGpus, gpuCdiName, nvidiaDeviceListStrategy, nvidiaVisibleDevices } from './allocate-gpus';

// Expected payloads are what the established plugins return for the same devices (see
// shared/reference/gpu-anchors.md): NVIDIA k8s-device-plugin's default `envvar` strategy sets only
// NVIDIA_VISIBLE_DEVICES=<uuid,…>; with PASS_DEVICE_SPECS it adds /dev/nvidiactl, /dev/nvidia-uvm,
// /dev/nvidia-uvm-tools, /dev/nvidia-modeset and /dev/nvidiaN (rw); CDI names are
// k8s.device-plugin.nvidia.com/gpu=<uuid>. Here the hook returns the device specs; the runtime keeps them,
// turns them into CDI specs or replaces them by NVIDIA_VISIBLE_DEVICES per strategy. ROCm's plugin returns /dev/kfd, /dev/dri/cardN, /dev/dri/renderDN
// (rw) and no env. Intel's returns the card and render nodes (rw) and read-only /dev/dri/by-path mounts.

describe('allocateGpus', () => {
  const fixtures: SysfsFixture[] = [];
  afterAll(() => fixtures.forEach((f) => f.remove()));
  const devicesOf = async (
    build: () => SysfsFixture,
    config = gpuConfig(),
  ): Promise<PluginDevice<GpuPayload>[]> => {
    const fixture = build();
    fixtures.push(fixture);
    return fixtureDevices(fixture, config);
  };
  const pick = (devices: PluginDevice<GpuPayload>[], ids: string[]) =>
    ids.map((id) => devices.find((d) => d.id === id) as PluginDevice<GpuPayload>);
  const rw = (path: string) => ({ containerPath: path, hostPath: path, permissions: 'rw' });

  it('NVIDIA: the control nodes once, then each GPU’s node, whatever the strategy (as PASS_DEVICE_SPECS)', async () => {
    const config = gpuConfig();
    const devices = await devicesOf(buildNvidiaMachine, config);
    const ids = [NVIDIA_UUIDS['0000:83:00.0'], NVIDIA_UUIDS['0000:03:00.0']];
    expect(allocateGpus(pick(devices, ids), config)).toEqual({
      devices: [
        '/dev/nvidiactl',
        '/dev/nvidia-uvm',
        '/dev/nvidia-uvm-tools',
        '/dev/nvidia-modeset',
        '/dev/nvidia2',
        '/dev/nvidia0',
      ].map(rw),
      mounts: [],
    });
    // No env and no CDI names: the runtime adds NVIDIA_VISIBLE_DEVICES (envvar) or the CDI names (cdi).
    const cdi = gpuConfig({ nvidia: { deviceListStrategy: ['cdi'] } });
    expect(allocateGpus(pick(devices, ids), cdi)).toEqual(allocateGpus(pick(devices, ids), config));
  });

  it('NVIDIA_VISIBLE_DEVICES: the GPU UUIDs in request order, MIG IDs as they are', async () => {
    const devices = await devicesOf(buildNvidiaMachine);
    const mig = `MIG-${NVIDIA_UUIDS['0000:86:00.0']}/2/0`;
    expect(nvidiaVisibleDevices(pick(devices, [NVIDIA_UUIDS['0000:04:00.0'], mig]))).toEqual({
      NVIDIA_VISIBLE_DEVICES: `${NVIDIA_UUIDS['0000:04:00.0']},${mig}`,
    });
  });

  it('NVIDIA default strategies: the configured list, device-specs added by passDeviceSpecs', () => {
    expect(nvidiaDeviceListStrategy(gpuConfig())).toEqual(['envvar']);
    expect(
      nvidiaDeviceListStrategy(
        gpuConfig({ nvidia: { deviceListStrategy: ['envvar', 'cdi'], passDeviceSpecs: true } }),
      ),
    ).toEqual(['envvar', 'cdi', 'device-specs']);
  });

  it('NVIDIA MIG: parent node plus GI and CI capability nodes; CDI name with ":" for "/"', async () => {
    const config = gpuConfig();
    const devices = await devicesOf(buildNvidiaMachine, config);
    const id = `MIG-${NVIDIA_UUIDS['0000:86:00.0']}/2/0`;
    const [device] = pick(devices, [id]);
    expect(gpuCdiName(device as PluginDevice<GpuPayload>)).toBe(`MIG-${NVIDIA_UUIDS['0000:86:00.0']}:2:0`);
    expect(
      allocateGpus([device as PluginDevice<GpuPayload>], config)
        .devices?.slice(-3)
        .map((d) => d.hostPath),
    ).toEqual(['/dev/nvidia3', '/dev/nvidia-caps/nvidia-cap426', '/dev/nvidia-caps/nvidia-cap427']);
  });

  it('AMD: /dev/kfd once, then each GPU’s card and render node, no env (as ROCm)', async () => {
    const devices = await devicesOf(buildAmdMachine);
    expect(allocateGpus(pick(devices, [AMD_GPUS.a, AMD_GPUS.c]), gpuConfig())).toEqual({
      devices: [
        '/dev/kfd',
        '/dev/dri/card1',
        '/dev/dri/renderD128',
        '/dev/dri/card3',
        '/dev/dri/renderD130',
      ].map(rw),
      mounts: [],
    });
  });

  it('Intel: card and render nodes plus read-only by-path mounts (as Intel’s plugin)', async () => {
    const devices = await devicesOf(buildIntelMachine);
    expect(allocateGpus(pick(devices, [INTEL_GPUS.flex]), gpuConfig())).toEqual({
      devices: ['/dev/dri/card1', '/dev/dri/renderD129'].map(rw),
      mounts: ['card', 'render'].map((k) => {
        const path = `/dev/dri/by-path/pci-${INTEL_GPUS.flex}-${k}`;
        return { containerPath: path, hostPath: path, readOnly: true };
      }),
    });
  });

  it('replicas map back to one GPU (nodes, env and CDI name); failRequestsGreaterThanOne refuses two', async () => {
    const config = gpuConfig({ sharing: { replicas: 4 } });
    const devices = await devicesOf(buildNvidiaMachine, config);
    const uuid = NVIDIA_UUIDS['0000:03:00.0'];
    const two = pick(devices, [`${uuid}::0`, `${uuid}::3`]);
    expect(allocateGpus(two, config).devices?.map((d) => d.hostPath)).toEqual([
      '/dev/nvidiactl',
      '/dev/nvidia-uvm',
      '/dev/nvidia-uvm-tools',
      '/dev/nvidia-modeset',
      '/dev/nvidia0',
    ]);
    expect(nvidiaVisibleDevices(two)).toEqual({ NVIDIA_VISIBLE_DEVICES: uuid });
    expect(two.map((d) => gpuCdiName(d))).toEqual([uuid, uuid]);
    const strict = gpuConfig({ sharing: { replicas: 4, failRequestsGreaterThanOne: true } });
    expect(() => allocateGpus(pick(devices, [`${uuid}::0`, `${uuid}::1`]), strict, 'nvidia.com/gpu')).toThrow(
      expect.objectContaining({
        code: Code.InvalidArgument,
        message: expect.stringContaining(
          "request for 'nvidia.com/gpu: 2' too large: maximum request size for shared resources is 1",
        ),
      }),
    );
    expect(allocateGpus(pick(devices, [`${uuid}::2`]), strict).devices).toHaveLength(5);
  });

  it('failRequestsGreaterThanOne leaves requests of whole GPUs alone (as NVIDIA: only replicas count)', async () => {
    const config = gpuConfig({
      sharing: {
        failRequestsGreaterThanOne: true,
        resources: [{ name: 'nvidia.com/gpu', replicas: 2, devices: [0] }],
      },
    });
    const devices = await devicesOf(buildNvidiaMachine, config);
    const whole = [NVIDIA_UUIDS['0000:04:00.0'], NVIDIA_UUIDS['0000:83:00.0']];
    expect(
      allocateGpus(pick(devices, whole), config)
        .devices?.slice(-2)
        .map((d) => d.hostPath),
    ).toEqual(['/dev/nvidia1', '/dev/nvidia2']);
  });
});
