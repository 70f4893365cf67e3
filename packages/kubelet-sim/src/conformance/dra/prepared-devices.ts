import type { draV1 } from '@kdp/api';
import type { PreparedDevice } from '../../dra/dra-events';

/** The devices of a prepare result, normalized for comparison. */
export const deviceKey = (devices: readonly PreparedDevice[]): string =>
  JSON.stringify(
    devices
      .map((d) => ({
        pool: d.poolName,
        device: d.deviceName,
        cdi: [...d.cdiDeviceIds].sort(),
        requests: [...d.requestNames].sort(),
        share: d.shareId ?? '',
      }))
      .sort((a, b) => `${a.pool}/${a.device}`.localeCompare(`${b.pool}/${b.device}`)),
  );

/** The devices of a prepare result, for a check's reason. */
export const describeDevices = (devices: readonly PreparedDevice[]): string =>
  devices.length === 0
    ? 'no devices'
    : devices.map((d) => `${d.poolName}/${d.deviceName} [${d.cdiDeviceIds.join(', ')}]`).join(', ');

/** The devices of one claim's NodePrepareResources result. */
export const devicesFromResponse = (
  driver: string,
  result: draV1.NodePrepareResourceResponse | undefined,
): PreparedDevice[] =>
  (result?.devices ?? []).map((d) => ({
    driver,
    requestNames: d.requestNames,
    poolName: d.poolName,
    deviceName: d.deviceName,
    cdiDeviceIds: d.cdiDeviceIds,
    ...(d.shareId === undefined ? {} : { shareId: d.shareId }),
  }));
