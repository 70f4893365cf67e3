import { createHash } from 'node:crypto';
import type { CdiContainerEdits, ContainerAllocation, PluginDevice } from '@kdp/core';
import { cdiEditsOf } from '@kdp/core/plugin';
import type { SliceAttributeValue, SliceDevice } from './pool-slices';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const C_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** `resource.k8s.io/v1` limits: an attribute name's identifier, a string value (bytes), attributes per device. */
const MAX_ATTRIBUTE_NAME = 32;
const MAX_ATTRIBUTE_VALUE = 64;
const MAX_ATTRIBUTES = 32;
const PCI_ADDRESS = /^([0-9a-f]{4,8}):([0-9a-f]{2}):[0-9a-f]{2}\.[0-7]$/;

/**
 * The DRA device name of a device ID: the ID itself when it is already a DNS label, else a DNS label made of its
 * lower-cased alphanumeric runs and 8 hex digits of its SHA-256 (`GPU-3f0b…` → `gpu-3f0b…-1a2b3c4d`). It depends on
 * the ID alone, so it is stable across scans, restarts and nodes, and two IDs meet only by a hash collision.
 */
export function draDeviceName(id: string): string {
  if (DNS_LABEL.test(id)) return id;
  const hash = createHash('sha256').update(id).digest('hex').slice(0, 8);
  const base = id
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, 54)
    .replace(/-+$/, '');
  return base === '' ? `d-${hash}` : `${base}-${hash}`;
}

/**
 * The pool of one resource on one node: `<node>/<resource>` with the resource's characters a DNS subdomain refuses
 * made `-` (`node-a/nvidia.com/gpu`). Pools are per driver cluster-wide, so the node name keeps them apart.
 */
export function draPoolName(nodeName: string, resource: string): string {
  const segments = resource
    .toLowerCase()
    .split('/')
    .map((segment) =>
      segment
        .replace(/[^a-z0-9.-]+/g, '-')
        .replace(/^[-.]+|[-.]+$/g, '')
        .replace(/\.{2,}/g, '.'),
    )
    .filter((segment) => segment !== '');
  return [nodeName, ...segments].join('/');
}

/** The PCIe root complex (`pci0000:3a`) of a device from its PCI address and the bridges above it. */
function pcieRootOf(device: PluginDevice<unknown>): string | undefined {
  const top = device.pciePath?.[0] ?? device.pciAddress;
  const match = top === undefined ? null : PCI_ADDRESS.exec(top);
  return match === null ? undefined : `pci${match[1]}:${match[2]}`;
}

/** A string cut to at most `max` UTF-8 bytes without splitting a character. */
function cutBytes(value: string, max: number): string {
  if (Buffer.byteLength(value) <= max) return value;
  let out = '';
  for (const char of value) {
    if (Buffer.byteLength(out + char) > max) break;
    out += char;
  }
  return out;
}

/** A free-form attribute key as a C identifier of at most 32 characters (`pci-id` → `pci_id`). */
function attributeName(key: string): string | undefined {
  let name = key.replace(/[^A-Za-z0-9_]/g, '_');
  if (/^[0-9]/.test(name)) name = `_${name}`;
  name = name.slice(0, MAX_ATTRIBUTE_NAME);
  return C_IDENTIFIER.test(name) ? name : undefined;
}

/**
 * A plugin device as a ResourceSlice device: its DRA name, the plugin's attributes (names made C identifiers,
 * values cut to 64 bytes), `resource` (the device-plugin resource name), `id` (the device ID, when it fits), `numa`
 * (the first NUMA node), and the standard `resource.kubernetes.io/pciBusID` / `pcieRoot` for PCI devices; at most
 * 32 attributes, ours first.
 */
export function toSliceDevice(resource: string, device: PluginDevice<unknown>): SliceDevice {
  const attributes: Record<string, SliceAttributeValue> = {
    resource: cutBytes(resource, MAX_ATTRIBUTE_VALUE),
  };
  if (Buffer.byteLength(device.id) <= MAX_ATTRIBUTE_VALUE) attributes['id'] = device.id;
  const numa = device.numaNodes?.[0];
  if (numa !== undefined) attributes['numa'] = numa;
  const pciBusId =
    device.pciAddress !== undefined && PCI_ADDRESS.test(device.pciAddress) ? device.pciAddress : undefined;
  const pcieRoot = pciBusId === undefined ? undefined : pcieRootOf(device);
  let room = MAX_ATTRIBUTES - Object.keys(attributes).length - (pciBusId ? 1 : 0) - (pcieRoot ? 1 : 0);
  for (const key of Object.keys(device.attributes ?? {}).sort()) {
    const name = attributeName(key);
    const value = device.attributes?.[key];
    if (name === undefined || value === undefined || name in attributes || room <= 0) continue;
    attributes[name] = cutBytes(value, MAX_ATTRIBUTE_VALUE);
    room -= 1;
  }
  return {
    name: draDeviceName(device.id),
    attributes,
    ...(pciBusId !== undefined ? { pciBusId } : {}),
    ...(pcieRoot !== undefined ? { pcieRoot } : {}),
  };
}

/** The value of a resource's device-list variables under DRA: nothing for a runtime hook to do. */
export const DEVICE_LIST_ENV_OFF = 'void';

/** A DRA device name as the suffix of its environment variables (`gpu-3f0b…-1a2b` → `GPU_3F0B…_1A2B`). */
export function envSuffix(deviceName: string): string {
  return deviceName.toUpperCase().replace(/[^A-Z0-9]/g, '_');
}

/**
 * Everything a container needs for one device under CDI, the only hand-over of DRA: the device nodes and mounts
 * its resource's allocate hook answers (whatever the device-plugin strategy), the resource's device-list
 * variables (`NVIDIA_VISIBLE_DEVICES`) set to `void` so that a runtime hook reading them (NVIDIA's legacy hook;
 * CUDA images set `NVIDIA_VISIBLE_DEVICES=all`) does not act as well, as NVIDIA's DRA driver does, and the
 * allocation's own environment under names of this device alone (`KDP_USB_STICK_IDS` →
 * `KDP_USB_STICK_IDS_<DEVICE>`): the CDI devices of several devices, requests or claims in one container then
 * compose (a runtime keeps one value per name). Undefined when there is nothing to edit.
 */
export function cdiDeviceEdits(
  allocation: ContainerAllocation,
  deviceListEnv: Readonly<Record<string, string>>,
  deviceName: string,
): CdiContainerEdits | undefined {
  const suffix = envSuffix(deviceName);
  const env = [
    ...Object.keys(deviceListEnv)
      .sort()
      .map((name) => `${name}=${DEVICE_LIST_ENV_OFF}`),
    ...Object.keys(allocation.envs ?? {})
      .filter((name) => !(name in deviceListEnv))
      .sort()
      .map((name) => `${name}_${suffix}=${allocation.envs?.[name] ?? ''}`),
  ];
  const { deviceNodes = [], mounts = [] } = cdiEditsOf(allocation);
  if (env.length + deviceNodes.length + mounts.length === 0) return undefined;
  return {
    ...(env.length > 0 ? { env } : {}),
    ...(deviceNodes.length > 0 ? { deviceNodes } : {}),
    ...(mounts.length > 0 ? { mounts } : {}),
  };
}
