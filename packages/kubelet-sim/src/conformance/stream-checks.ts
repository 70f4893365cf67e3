import { DeviceIdMaxLength, Healthy, Unhealthy } from '@kdp/api';
import type { DevicesEvent } from '../sim-events';
import type { ConformanceCheck } from './conformance-check';

/**
 * Every ListAndWatch message must be a full list with exact health strings (P-14, P-15): fails on a health
 * string other than `Healthy`/`Unhealthy`, an empty or duplicate ID; warns when a message drops devices the
 * message before it listed (what a plugin sending deltas does).
 */
export function checkFullLists(messages: readonly DevicesEvent[]): ConformanceCheck {
  const id = 'full-lists';
  const title = 'every ListAndWatch message is a full list with exact health strings';
  if (messages.length === 0) return { id, title, status: 'fail', reason: 'no ListAndWatch message arrived' };
  for (const [index, message] of messages.entries()) {
    const bad = message.devices.find((d) => d.health !== Healthy && d.health !== Unhealthy);
    if (bad !== undefined) {
      return {
        id,
        title,
        status: 'fail',
        reason:
          `message ${index + 1}: device ${JSON.stringify(bad.ID)} has health ${JSON.stringify(bad.health)}; ` +
          `only "Healthy" (exactly) is healthy, anything else counts as unhealthy (P-15)`,
      };
    }
    const ids = message.devices.map((d) => d.ID);
    if (ids.includes('')) {
      return { id, title, status: 'fail', reason: `message ${index + 1} has a device with an empty ID` };
    }
    const duplicate = ids.find((d, i) => ids.indexOf(d) !== i);
    if (duplicate !== undefined) {
      return {
        id,
        title,
        status: 'fail',
        reason: `message ${index + 1} lists ${JSON.stringify(duplicate)} twice; the kubelet keeps only the last (P-14)`,
      };
    }
  }
  for (let i = 1; i < messages.length; i += 1) {
    const before = new Set(messages[i - 1]?.devices.map((d) => d.ID));
    const now = new Set(messages[i]?.devices.map((d) => d.ID));
    const dropped = [...before].filter((d) => !now.has(d));
    if (dropped.length > 0 && now.size > 0) {
      return {
        id,
        title,
        status: 'warn',
        reason:
          `message ${i + 1} lists ${now.size} of the ${before.size} devices of the message before it ` +
          `(missing ${dropped.slice(0, 3).join(', ')}${dropped.length > 3 ? ', …' : ''}): a message is the ` +
          `full list, and the kubelet removes every device it does not name (P-14); fine only if they were removed`,
      };
    }
  }
  return {
    id,
    title,
    status: 'pass',
    reason: `${messages.length} message(s), all full lists with exact health strings`,
  };
}

/** Device IDs longer than the documented 63 characters: the kubelet accepts them, so only a warning (P-18). */
export function checkDeviceIdLength(messages: readonly DevicesEvent[]): ConformanceCheck {
  const id = 'device-id-length';
  const title = `device IDs are at most ${DeviceIdMaxLength} characters`;
  const long = [...new Set(messages.flatMap((m) => m.devices.map((d) => d.ID)))].filter(
    (d) => d.length > DeviceIdMaxLength,
  );
  if (long.length === 0) return { id, title, status: 'pass', reason: 'every ID is short enough' };
  const first = long[0] ?? '';
  return {
    id,
    title,
    status: 'warn',
    reason: `${long.length} ID(s) over ${DeviceIdMaxLength} characters, e.g. ${JSON.stringify(first)} (${first.length}); the kubelet does not enforce the limit (P-18) but other tools may`,
  };
}
