import type { CdiDevice } from '@kdp/core';
import type { ClaimRef } from './check-allocation';
import type { PreparedClaimRecord, PreparedDeviceRecord } from './checkpoint';
import type { PrepareOutput } from './dra-driver';
import type { DeviceRequestAllocationResult } from './resource-claim';
import { baseRequestName } from './base-request-name';

/**
 * The completed record of a claim from what the driver prepared: each device's CDI IDs (its own edits — device
 * nodes, mounts, environment — as a CDI device named `<uid>-<device>` (`<uid>-<device>-<shareID>` for a share), then the IDs the driver owns) and the CDI
 * devices the claim's spec holds. There are no claim-wide edits: the kubelet gives a container only the devices
 * of the request it names, so each device carries all it needs. Throws when the driver returned a device not
 * allocated to the claim.
 */
export function buildPreparedRecord(
  ref: ClaimRef,
  results: readonly DeviceRequestAllocationResult[],
  output: PrepareOutput,
  qualify: (name: string) => string,
): PreparedClaimRecord {
  const allocated = new Set(results.map((r) => `${r.pool}\0${r.device}`));
  const cdiDevices: CdiDevice[] = [];
  const names = new Set<string>();
  const devices = output.devices.map((device): PreparedDeviceRecord => {
    if (!allocated.has(`${device.poolName}\0${device.deviceName}`))
      throw new Error(
        `driver returned device ${device.poolName}/${device.deviceName}, which is not allocated to the claim`,
      );
    const ids: string[] = [];
    if (device.containerEdits !== undefined) {
      // A share's own name: two shares of one device (in one claim or on one node) never meet.
      const base = `${ref.uid}-${device.deviceName}`;
      const name = uniqueName(device.shareId === undefined ? base : `${base}-${device.shareId}`, names);
      cdiDevices.push({ name, containerEdits: device.containerEdits });
      ids.push(qualify(name));
    }
    ids.push(...(device.cdiDeviceIds ?? []));
    return {
      // The kubelet matches a container's request exactly: `main`, never the result's `main/sub`.
      requestNames: [...new Set(device.requestNames.map(baseRequestName))],
      poolName: device.poolName,
      deviceName: device.deviceName,
      cdiDeviceIds: ids,
      ...(device.shareId !== undefined ? { shareId: device.shareId } : {}),
    };
  });
  return {
    ...ref,
    state: 'PrepareCompleted',
    results,
    devices,
    ...(cdiDevices.length > 0 ? { cdi: { devices: cdiDevices } } : {}),
  };
}

function uniqueName(base: string, taken: Set<string>): string {
  let name = base;
  for (let i = 2; taken.has(name); i += 1) name = `${base}-${i}`;
  taken.add(name);
  return name;
}
