import type { Sysfs } from '@kdp/topology';

/**
 * A compute partition beyond a GPU's first, as amdgpu registers it: the platform device
 * `/sys/devices/platform/amdgpu_xcp_N` with its own DRM card and render node.
 */
export interface XcpDevice {
  /** `amdgpu_xcp_N`: the device ID ROCm's plugin gives the partition. */
  readonly name: string;
  /** `cardN`. */
  readonly card: string;
  /** `renderDN`. */
  readonly render: string;
}

const PLATFORM = 'devices/platform';

/**
 * The `amdgpu_xcp_N` platform devices by render minor. amdgpu creates seven per partitionable GPU whatever its mode,
 * so only those whose render minor a KFD node lists are partitions in use; one without a card or render node is left
 * out (a KFD node naming its render minor is then excluded by the scan).
 */
export async function readXcpDevices(sysfs: Sysfs): Promise<ReadonlyMap<number, XcpDevice>> {
  const out = new Map<number, XcpDevice>();
  for (const name of await sysfs.list(PLATFORM)) {
    if (!/^amdgpu_xcp_\d{1,3}$/.test(name)) continue;
    const nodes = await sysfs.list(`${PLATFORM}/${name}/drm`);
    const card = nodes.find((node) => /^card\d{1,4}$/.test(node));
    const render = nodes.find((node) => /^renderD\d{1,5}$/.test(node));
    if (card === undefined || render === undefined) continue;
    out.set(Number(render.slice('renderD'.length)), { name, card, render });
  }
  return out;
}
