import { isIP } from 'node:net';
import { asArray, asRecord, dnsLabel, driverName, poolName, type Errors } from './field-errors';

/** Upstream's limits of `status.devices[]` (KEP 4817, `k8s.io/api/resource/v1`). */
const AllocatedDeviceStatusMaxConditions = 8;
const AllocatedDeviceStatusDataMaxLength = 10 * 1024;
const NetworkDeviceDataMaxIPs = 16;
const NetworkDeviceDataInterfaceNameMaxLength = 256;
const NetworkDeviceDataHardwareAddressMaxLength = 128;
const ConditionReasonMaxLength = 1024;
const ConditionMessageMaxLength = 32768;

const conditionReasonRe = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;
const conditionStatuses = ['True', 'False', 'Unknown'] as const;

/** The key a device status entry and an allocation result share: driver, pool, device and share. */
const deviceKey = (entry: Record<string, unknown>): string =>
  [entry['driver'], entry['pool'], entry['device'], entry['shareID'] ?? ''].map(String).join('/');

/** An IP address in CIDR notation whose prefix fits its family (`192.0.2.5/24`, `2001:db8::1/64`). */
function isInterfaceAddress(value: string): boolean {
  const [address = '', prefix, ...rest] = value.split('/');
  const family = isIP(address);
  if (family === 0 || prefix === undefined || rest.length > 0 || !/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

/** Upstream's checks of metav1 Conditions: type, status, reason, lastTransitionTime; unique types. */
function conditions(errors: Errors, field: string, list: readonly unknown[]): void {
  if (list.length > AllocatedDeviceStatusMaxConditions)
    errors.tooMany(field, list.length, AllocatedDeviceStatusMaxConditions);
  const types = new Set<string>();
  list.forEach((item, i) => {
    const condition = asRecord(item);
    const at = `${field}[${i}]`;
    const type = condition['type'];
    if (typeof type !== 'string' || type === '') errors.required(`${at}.type`);
    else if (types.has(type)) errors.duplicate(`${at}.type`, type);
    else types.add(type);
    const status = condition['status'];
    if (!conditionStatuses.includes(status as (typeof conditionStatuses)[number]))
      errors.notSupported(`${at}.status`, status, conditionStatuses);
    if (typeof condition['lastTransitionTime'] !== 'string' || condition['lastTransitionTime'] === '')
      errors.required(`${at}.lastTransitionTime`, 'must be set');
    const reason = condition['reason'];
    if (typeof reason !== 'string' || reason === '') errors.required(`${at}.reason`);
    else {
      if (reason.length > ConditionReasonMaxLength) errors.tooLong(`${at}.reason`, ConditionReasonMaxLength);
      if (!conditionReasonRe.test(reason))
        errors.invalid(
          `${at}.reason`,
          reason,
          "a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'",
        );
    }
    const message = condition['message'];
    if (typeof message === 'string' && message.length > ConditionMessageMaxLength)
      errors.tooLong(`${at}.message`, ConditionMessageMaxLength);
  });
}

function networkData(errors: Errors, field: string, data: Record<string, unknown>): void {
  const name = data['interfaceName'];
  if (typeof name === 'string' && name.length > NetworkDeviceDataInterfaceNameMaxLength)
    errors.tooLong(`${field}.interfaceName`, NetworkDeviceDataInterfaceNameMaxLength);
  const address = data['hardwareAddress'];
  if (typeof address === 'string' && address.length > NetworkDeviceDataHardwareAddressMaxLength)
    errors.tooLong(`${field}.hardwareAddress`, NetworkDeviceDataHardwareAddressMaxLength);
  const ips = asArray(data['ips']);
  if (ips.length > NetworkDeviceDataMaxIPs)
    errors.tooMany(`${field}.ips`, ips.length, NetworkDeviceDataMaxIPs);
  const seen = new Set<string>();
  ips.forEach((ip, i) => {
    const text = String(ip);
    if (!isInterfaceAddress(text))
      errors.invalid(`${field}.ips[${i}]`, ip, 'must be an IP address in CIDR form, (e.g. 10.9.8.7/24)');
    if (seen.has(text)) errors.duplicate(`${field}.ips[${i}]`, ip);
    seen.add(text);
  });
}

/**
 * Upstream's validation of a claim's `status.devices[]` (KEP 4817): each entry names a device of the claim's
 * allocation (driver, pool, device and share), once; at most 8 valid conditions; `data` at most 10 KiB; and
 * `networkData` with an interface name of at most 256 bytes, a hardware address of at most 128 and at most 16
 * distinct IPs in CIDR form.
 */
export function validateDeviceStatuses(errors: Errors, status: Record<string, unknown>): void {
  const results = asArray(asRecord(asRecord(status['allocation'])['devices'])['results']);
  const allocated = new Set(results.map((r) => deviceKey(asRecord(r))));
  const seen = new Set<string>();
  asArray(status['devices']).forEach((item, i) => {
    const device = asRecord(item);
    const field = `status.devices[${i}]`;
    driverName(errors, `${field}.driver`, device['driver']);
    poolName(errors, `${field}.pool`, device['pool']);
    dnsLabel(errors, `${field}.device`, device['device']);
    const key = deviceKey(device);
    if (!allocated.has(key)) errors.invalid(field, key, 'must be an allocated device in the claim');
    if (seen.has(key)) errors.duplicate(field, key);
    seen.add(key);
    conditions(errors, `${field}.conditions`, asArray(device['conditions']));
    const data = device['data'];
    if (data !== undefined && JSON.stringify(data).length > AllocatedDeviceStatusDataMaxLength)
      errors.tooLong(`${field}.data`, AllocatedDeviceStatusDataMaxLength);
    if (device['networkData'] !== undefined)
      networkData(errors, `${field}.networkData`, asRecord(device['networkData']));
  });
}
