import type { ContainerAllocation, DeviceMount, DeviceNode } from '@kdp/core';
import type { DevicePayload } from '../resources/device-payload';
import type { UsbNodeKind } from '../scan/usb-device';

const ENV_SUFFIX: Record<UsbNodeKind, string> = {
  usb: 'BUS',
  tty: 'TTY',
  hidraw: 'HIDRAW',
  video: 'VIDEO',
  input: 'INPUT',
};

/** `example.com/zigbee-stick` → `KDP_USB_ZIGBEE_STICK`: the prefix of the env variables of one resource. */
export function envPrefix(resource: string): string {
  const name = resource.slice(resource.indexOf('/') + 1);
  return `KDP_USB_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/**
 * One container's allocation for the given devices (shares of one physical device count once): every selected
 * node as a DeviceSpec with the resource's permissions, path-group mounts, and comma-separated env variables
 * `<prefix>_IDS`, `_PORTS`, `_SERIALS`, `_BUS`, `_TTY`, `_HIDRAW`, `_VIDEO`, `_INPUT` (USB) or `_PATHS` (path
 * globs), each set only when non-empty; none with `envs: false` (started as generic-device-plugin, which sets none).
 */
export function buildAllocation(
  resource: string,
  payloads: readonly DevicePayload[],
  options: { readonly envs?: boolean } = {},
): ContainerAllocation {
  const devices = new Map<string, DeviceNode>();
  const mounts = new Map<string, DeviceMount>();
  const env = new Map<string, string[]>();
  const push = (key: string, value: string): void => {
    const list = env.get(key) ?? [];
    if (!list.includes(value)) list.push(value);
    env.set(key, list);
  };
  const seen = new Set<string>();
  for (const payload of payloads) {
    if (seen.has(payload.baseId)) continue;
    seen.add(payload.baseId);
    push('IDS', payload.baseId);
    if (payload.kind === 'usb') {
      push('PORTS', payload.device.portPath);
      if (payload.device.serial !== undefined) push('SERIALS', payload.device.serial);
      for (const node of payload.device.nodes) {
        if (!payload.nodes.includes(node.kind)) continue;
        devices.set(node.path, {
          containerPath: node.path,
          hostPath: node.path,
          permissions: payload.permissions,
        });
        push(ENV_SUFFIX[node.kind], node.path);
      }
    } else {
      for (const node of payload.devices) {
        devices.set(node.containerPath, node);
        push('PATHS', node.containerPath);
      }
      for (const mount of payload.mounts) {
        mounts.set(mount.containerPath, mount);
        push('PATHS', mount.containerPath);
      }
    }
  }
  const prefix = envPrefix(resource);
  const envs =
    options.envs === false
      ? {}
      : Object.fromEntries([...env].map(([key, values]) => [`${prefix}_${key}`, values.join(',')]));
  return { devices: [...devices.values()], mounts: [...mounts.values()], envs };
}
