import type { AnyResourceDeclaration, PluginDevice } from '@kdp/core';
import type { SliceDeviceTaint } from './pool-slices';

/** The key of the taint an Unhealthy device has in its ResourceSlice. */
export const UNHEALTHY_TAINT_KEY = 'kdp.dev/unhealthy';

/** A label value's limit: 63 characters. */
const MAX_LABEL_VALUE = 63;

/**
 * A device's problem as a label value, what a taint's value must be: runs of characters other than
 * `[A-Za-z0-9_.-]` made `-`, cut to 63 characters, starting and ending alphanumeric
 * (`NVML reported critical Xid 79` → `NVML-reported-critical-Xid-79`); undefined when nothing is left.
 */
export function taintValue(problem: string | undefined): string | undefined {
  const value = (problem ?? '')
    .replace(/[^A-Za-z0-9_.-]+/g, '-')
    .slice(0, MAX_LABEL_VALUE)
    .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '');
  return value === '' ? undefined : value;
}

/**
 * The `kdp.dev/unhealthy` taint of an Unhealthy device, its value naming the problem and its effect the
 * resource's `dra.taintEffect` (default `NoSchedule`); undefined for a Healthy device. No `timeAdded`: see
 * {@link createTaintTimes}.
 */
export function healthTaint(
  declaration: AnyResourceDeclaration,
  device: PluginDevice<unknown>,
): SliceDeviceTaint | undefined {
  if (device.health === 'Healthy') return undefined;
  const value = taintValue(device.problem);
  return {
    key: UNHEALTHY_TAINT_KEY,
    ...(value !== undefined ? { value } : {}),
    effect: declaration.dra?.taintEffect?.(device) ?? 'NoSchedule',
  };
}
