import type { CdiDevice } from '@kdp/core';
import type { ClaimRef } from './check-allocation';
import type { PreparedClaimRecord, PreparedDeviceRecord } from './checkpoint';
import type { PrepareOutput } from './dra-driver';
import type { DeviceRequestAllocationResult } from './resource-claim';
import { baseRequestName } from './base-request-name';

/**
 * The completed record of a claim from what the driver prepared: each device's CDI IDs (its own edits as a CDI
 * device named `<uid>-<device>`, the claim-wide edits as `<uid>-claim` on every device) and the CDI devices the
 * claim's spec holds. Throws when the driver returned a device not allocated to the claim.
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
  const claimWide =
    output.containerEdits !== undefined ? qualify(uniqueName(`${ref.uid}-claim`, names)) : undefined;
  if (claimWide !== undefined && output.containerEdits !== undefined)
    cdiDevices.push({
      name: claimWide.slice(claimWide.indexOf('=') + 1),
      containerEdits: output.containerEdits,
    });
  const devices = output.devices.map((device): PreparedDeviceRecord => {
    if (!allocated.has(`${device.poolName}\0${device.deviceName}`))
      throw new Error(
        `driver returned device ${device.poolName}/${device.deviceName}, which is not allocated to the claim`,
      );
    const ids = [...(device.cdiDeviceIds ?? [])];
    if (device.containerEdits !== undefined) {
      const name = uniqueName(`${ref.uid}-${device.deviceName}`, names);
      cdiDevices.push({ name, containerEdits: device.containerEdits });
      ids.push(qualify(name));
    }
    if (claimWide !== undefined) ids.push(claimWide);
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
