import { DeviceIdMaxLength, Healthy, Unhealthy } from '@kdp/api';
import type { DevicesEvent } from '../sim-events';
import { checkCatalog, checkResult } from './check-catalog';
import type { ConformanceCheck } from './conformance-check';

const noList = 'not run: no ListAndWatch message arrived';

/**
 * Every device health must be exactly `Healthy` or `Unhealthy` (P-15): anything else counts as unhealthy, so
 * a plugin writing `healthy` never has an allocatable device.
 */
export function checkHealthStrings(messages: readonly DevicesEvent[]): ConformanceCheck {
  const { healthStrings } = checkCatalog;
  if (messages.length === 0) return checkResult(healthStrings, 'skip', noList);
  for (const [index, message] of messages.entries()) {
    const bad = message.devices.find((d) => d.health !== Healthy && d.health !== Unhealthy);
    if (bad !== undefined) {
      return checkResult(
        healthStrings,
        'fail',
        `message ${index + 1}: device ${JSON.stringify(bad.ID)} has health ${JSON.stringify(bad.health)}; ` +
          'only "Healthy" (exactly) is healthy, anything else counts as unhealthy',
      );
    }
  }
  return checkResult(healthStrings, 'pass', `${messages.length} message(s), all with exact health strings`);
}

/**
 * Every ListAndWatch message should be a full list (P-14): warns on an empty or duplicate ID, and when a
 * message drops devices the message before it listed (what a plugin sending deltas does).
 */
export function checkFullLists(messages: readonly DevicesEvent[]): ConformanceCheck {
  const { fullLists } = checkCatalog;
  if (messages.length === 0) return checkResult(fullLists, 'skip', noList);
  for (const [index, message] of messages.entries()) {
    const ids = message.devices.map((d) => d.ID);
    if (ids.includes('')) {
      return checkResult(fullLists, 'warn', `message ${index + 1} has a device with an empty ID`);
    }
    const duplicate = ids.find((d, i) => ids.indexOf(d) !== i);
    if (duplicate !== undefined) {
      return checkResult(
        fullLists,
        'warn',
        `message ${index + 1} lists ${JSON.stringify(duplicate)} twice; the kubelet keeps only the last`,
      );
    }
  }
  for (let i = 1; i < messages.length; i += 1) {
    const before = new Set(messages[i - 1]?.devices.map((d) => d.ID));
    const now = new Set(messages[i]?.devices.map((d) => d.ID));
    const dropped = [...before].filter((d) => !now.has(d));
    if (dropped.length > 0 && now.size > 0) {
      return checkResult(
        fullLists,
        'warn',
        `message ${i + 1} lists ${now.size} of the ${before.size} devices of the message before it ` +
          `(missing ${dropped.slice(0, 3).join(', ')}${dropped.length > 3 ? ', …' : ''}): a message is the ` +
          'full list, and the kubelet removes every device it does not name; fine only if they were removed',
      );
    }
  }
  return checkResult(fullLists, 'pass', `${messages.length} message(s), all full lists`);
}

/** Device IDs longer than the documented 63 characters: the kubelet accepts them, so only a warning (P-18). */
export function checkDeviceIdLength(messages: readonly DevicesEvent[]): ConformanceCheck {
  const { deviceIdLength } = checkCatalog;
  if (messages.length === 0) return checkResult(deviceIdLength, 'skip', noList);
  const long = [...new Set(messages.flatMap((m) => m.devices.map((d) => d.ID)))].filter(
    (d) => d.length > DeviceIdMaxLength,
  );
  if (long.length === 0) return checkResult(deviceIdLength, 'pass', 'every ID is short enough');
  const first = long[0] ?? '';
  return checkResult(
    deviceIdLength,
    'warn',
    `${long.length} ID(s) over ${DeviceIdMaxLength} characters, e.g. ${JSON.stringify(first)} (${first.length}); ` +
      'the kubelet does not enforce the limit, but other tools may',
  );
}
