import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { CdiMount, DeviceNetworkData } from '@kdp/core';
import { baseRequestName } from './base-request-name';
import type { ApiDeviceAttribute } from './pool-slices';
import { replaceFile } from './replace-file';
import type { ResourceClaim } from './resource-claim';

/** Where a claim's device metadata appears in its containers (KEP 5304's path for a directly named claim). */
export const DEVICE_METADATA_CONTAINER_DIR = '/var/run/kubernetes.io/dra-device-attributes/resourceclaims';

/** The `apiVersion` of the metadata files this package writes. */
export const DEVICE_METADATA_API_VERSION = 'metadata.kdp.dev/v1alpha1';

/** One allocated device as its metadata file lists it. */
export interface DeviceMetadataEntry {
  /** The allocation result's request (`main` or `main/sub`). */
  readonly request: string;
  readonly driver: string;
  readonly pool: string;
  readonly device: string;
  /** The device's attributes as its ResourceSlice publishes them. */
  readonly attributes: Readonly<Record<string, ApiDeviceAttribute>>;
  readonly shareID?: string | undefined;
  readonly consumedCapacity?: Readonly<Record<string, string>> | undefined;
  readonly networkData?: DeviceNetworkData | undefined;
}

/** The per-claim device metadata files of one driver (`serve --mode dra --dra-device-metadata`). */
export interface DeviceMetadataWriter {
  /**
   * Writes one file per request of the claim (`<dir>/<claimUID>/<request>/<driver>-metadata.json`, mode 0644) and
   * answers, per request name, the read-only mount that puts it at
   * `/var/run/kubernetes.io/dra-device-attributes/resourceclaims/<claim>/<request>/<driver>-metadata.json`.
   */
  write(claim: ResourceClaim, devices: readonly DeviceMetadataEntry[]): Promise<Map<string, CdiMount>>;
  /** Removes the claim's files. */
  remove(uid: string): Promise<void>;
}

const SAFE_SEGMENT = /^[A-Za-z0-9][-A-Za-z0-9._]*$/;

function segment(what: string, value: string): string {
  if (!SAFE_SEGMENT.test(value) || value.length > 253)
    throw new Error(`${what} ${JSON.stringify(value)} cannot name a metadata file`);
  return value;
}

/**
 * Creates the device-metadata writer of driver `driver` under `dir` (the driver's data directory): each file is a
 * `DeviceMetadata` object naming the claim and, for its request, every allocated device with its slice attributes
 * (PCI address, NUMA node, UUIDs, netdev, GUIDs — whatever the slice carries), its share and its network data.
 */
export function createDeviceMetadataWriter(dir: string, driver: string): DeviceMetadataWriter {
  const claimDir = (uid: string): string => join(dir, segment('claim UID', uid));
  const fileName = `${segment('driver', driver)}-metadata.json`;
  return {
    async write(claim, devices) {
      const { name, namespace, uid } = claim.metadata;
      const byRequest = new Map<string, DeviceMetadataEntry[]>();
      for (const device of devices) {
        const request = baseRequestName(device.request);
        byRequest.set(request, [...(byRequest.get(request) ?? []), device]);
      }
      const mounts = new Map<string, CdiMount>();
      for (const [request, entries] of byRequest) {
        const requestDir = join(claimDir(uid), segment('request', request));
        await mkdir(requestDir, { recursive: true, mode: 0o755 });
        const file = join(requestDir, fileName);
        const content = {
          apiVersion: DEVICE_METADATA_API_VERSION,
          kind: 'DeviceMetadata',
          metadata: { name, namespace, uid },
          requests: [{ name: request, devices: entries.map(({ request: _request, ...rest }) => rest) }],
        };
        await replaceFile(file, `${JSON.stringify(content, null, 2)}\n`, 0o644);
        mounts.set(request, {
          hostPath: file,
          containerPath: `${DEVICE_METADATA_CONTAINER_DIR}/${name}/${request}/${fileName}`,
          type: 'bind',
          options: ['ro', 'nosuid', 'nodev', 'noexec', 'bind'],
        });
      }
      return mounts;
    },
    async remove(uid) {
      await rm(claimDir(uid), { recursive: true, force: true });
    },
  };
}
