import type { SysfsFixture } from '@kdp/topology/testing';

// The files the GPU drivers write (procfs, KFD topology, DRM class devices) and their /dev nodes, on top of
// @kdp/topology's fixture builder.

/** NVIDIA's shared control nodes with their real numbers (nvidia-uvm's major is dynamic; 508 here). */
export function addNvidiaControlNodes(fixture: SysfsFixture): void {
  fixture.addDevNode('/dev/nvidiactl', 195, 255);
  fixture.addDevNode('/dev/nvidia-modeset', 195, 254);
  fixture.addDevNode('/dev/nvidia-uvm', 508, 0);
  fixture.addDevNode('/dev/nvidia-uvm-tools', 508, 1);
  fixture.writeProc(
    'driver/nvidia/version',
    'NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.90.07  Fri May 31 09:35:42 UTC 2024\nGCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n',
  );
  fixture.writeProc(
    'devices',
    'Character devices:\n  1 mem\n195 nvidia-frontend\n226 drm\n508 nvidia-uvm\n509 nvidia-caps\n',
  );
}

/** The information file the driver writes for one GPU. */
export function nvidiaInformation(model: string, uuid: string, address: string, minor: number): string {
  return [
    `Model: \t\t ${model}`,
    'IRQ:   \t\t 0',
    `GPU UUID: \t ${uuid}`,
    'Video BIOS: \t 96.00.99.00.01',
    'Bus Type: \t PCIe',
    'DMA Size: \t 52 bits',
    'DMA Mask: \t 0xfffffffffffff',
    `Bus Location: \t 0000${address}`,
    `Device Minor: \t ${minor}`,
    'GPU Firmware: \t 550.90.07',
    'GPU Excluded:\t No',
    '',
  ].join('\n');
}

/** The whole static mig-minors table of the driver (config, monitor, gpu0–31 × gi0–14 × ci0–7). */
export function migMinorsTable(gpus = 32): string {
  const lines = ['config 1', 'monitor 2'];
  let minor = 3;
  for (let gpu = 0; gpu < gpus; gpu++) {
    for (let gi = 0; gi < 15; gi++) {
      lines.push(`gpu${gpu}/gi${gi}/access ${minor++}`);
      for (let ci = 0; ci < 8; ci++) lines.push(`gpu${gpu}/gi${gi}/ci${ci}/access ${minor++}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** The capability minor of gpuN/giG[/ciC] in {@link migMinorsTable}. */
export function migMinor(gpu: number, gi: number, ci?: number): number {
  return 3 + gpu * 135 + gi * 9 + (ci === undefined ? 0 : ci + 1);
}

/** Creates a GPU instance with compute instances on an NVIDIA GPU (procfs capabilities + /dev/nvidia-caps). */
export function addMigInstance(
  fixture: SysfsFixture,
  gpuMinor: number,
  gi: number,
  cis: readonly number[],
): void {
  const base = `driver/nvidia/capabilities/gpu${gpuMinor}/mig/gi${gi}`;
  const access = (minor: number): string =>
    `DeviceFileMinor: ${minor}\nDeviceFileMode: 292\nDeviceFileModify: 1\n`;
  fixture.writeProc(`${base}/access`, access(migMinor(gpuMinor, gi)));
  fixture.addDevNode(`/dev/nvidia-caps/nvidia-cap${migMinor(gpuMinor, gi)}`, 509, migMinor(gpuMinor, gi));
  for (const ci of cis) {
    fixture.writeProc(`${base}/ci${ci}/access`, access(migMinor(gpuMinor, gi, ci)));
    fixture.addDevNode(
      `/dev/nvidia-caps/nvidia-cap${migMinor(gpuMinor, gi, ci)}`,
      509,
      migMinor(gpuMinor, gi, ci),
    );
  }
}

/** One NVIDIA GPU: PCI function (already added by the caller or here), procfs information, /dev/nvidiaN. */
export function addNvidiaGpuFiles(
  fixture: SysfsFixture,
  gpu: { readonly address: string; readonly uuid: string; readonly minor: number; readonly model: string },
): void {
  fixture.writeProc(
    `driver/nvidia/gpus/${gpu.address}/information`,
    nvidiaInformation(gpu.model, gpu.uuid, gpu.address.slice(4), gpu.minor),
  );
  fixture.writeProc(`driver/nvidia/gpus/${gpu.address}/registry`, 'Binary: ""\n');
  fixture.addDevNode(`/dev/nvidia${gpu.minor}`, 195, gpu.minor);
}

/** One KFD topology node for an AMD GPU (properties as amdgpu writes them), with io_links. */
export function addKfdGpuNode(
  fixture: SysfsFixture,
  spec: {
    readonly node: number;
    readonly gpuId: number;
    readonly address: string;
    readonly renderMinor: number;
    readonly links: readonly { readonly to: number; readonly type: number; readonly weight?: number }[];
  },
): void {
  const [domain, bus, devfn] = spec.address.split(':') as [string, string, string];
  const [device, fn] = devfn.split('.') as [string, string];
  const location = (parseInt(bus, 16) << 8) | (parseInt(device, 16) << 3) | parseInt(fn, 10);
  const dir = `devices/virtual/kfd/kfd/topology/nodes/${spec.node}`;
  fixture.write(`${dir}/gpu_id`, `${spec.gpuId}\n`);
  fixture.write(`${dir}/name`, 'gfx90a\n');
  fixture.write(
    `${dir}/properties`,
    [
      'cpu_cores_count 0',
      'simd_count 440',
      'mem_banks_count 1',
      'gfx_target_version 90010',
      'vendor_id 4098',
      'device_id 29711',
      `location_id ${location}`,
      `domain ${parseInt(domain, 16)}`,
      `drm_render_minor ${spec.renderMinor}`,
      'num_xcc 1',
      '',
    ].join('\n'),
  );
  spec.links.forEach((link, i) => {
    fixture.write(
      `${dir}/io_links/${i}/properties`,
      `type ${link.type}\nversion_major 0\nversion_minor 0\nnode_from ${spec.node}\nnode_to ${link.to}\nweight ${link.weight ?? (link.type === 11 ? 15 : 20)}\nmin_latency 0\nmax_latency 0\nmin_bandwidth 0\nmax_bandwidth 0\nrecommended_transfer_size 0\nflags 1\n`,
    );
  });
}

/** A KFD CPU node (gpu_id 0), as every KFD topology has one per socket. */
export function addKfdCpuNode(fixture: SysfsFixture, node: number, cpus: number): void {
  const dir = `devices/virtual/kfd/kfd/topology/nodes/${node}`;
  fixture.write(`${dir}/gpu_id`, '0\n');
  fixture.write(
    `${dir}/properties`,
    `cpu_cores_count ${cpus}\nsimd_count 0\nlocation_id 0\ndrm_render_minor 0\n`,
  );
}

/** /sys/class/kfd/kfd → devices/virtual/kfd/kfd (call once AMD nodes exist) and /dev/kfd. */
export function linkKfd(fixture: SysfsFixture): void {
  fixture.linkTo('class/kfd/kfd', 'devices/virtual/kfd/kfd');
  fixture.addDevNode('/dev/kfd', 511, 0);
}

/** DRM card and render nodes of a PCI GPU: sysfs class/drm entries plus /dev/dri nodes. */
export function addDrmNodes(fixture: SysfsFixture, address: string, card: number, render: number): void {
  fixture.addClassDevice('drm', `card${card}`, { pciAddress: address, subdir: 'drm', dev: `226:${card}` });
  fixture.addClassDevice('drm', `renderD${render}`, {
    pciAddress: address,
    subdir: 'drm',
    dev: `226:${render}`,
  });
  fixture.addDevNode(`/dev/dri/card${card}`, 226, card);
  fixture.addDevNode(`/dev/dri/renderD${render}`, 226, render);
}
