import { checkResult } from '../check-catalog';
import type { ConformanceCheck } from '../conformance-check';
import type { ApiObject } from './dra-check-api';
import { draCheckCatalog } from './dra-check-catalog';

/** A label key's name part, and a label value: at most 63, alphanumeric at both ends (`-`, `_`, `.` inside). */
const LABEL_PART = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const EFFECTS = new Set(['NoSchedule', 'NoExecute']);

type Fields = Record<string, unknown>;
const list = (value: unknown): Fields[] => (Array.isArray(value) ? (value as Fields[]) : []);

/** What is wrong with one taint, as upstream's `validateDeviceTaint` and a stable publication see it. */
function taintProblems(taint: Fields): string[] {
  const problems: string[] = [];
  const key = typeof taint['key'] === 'string' ? taint['key'] : '';
  const slash = key.lastIndexOf('/');
  const [prefix, name] = slash >= 0 ? [key.slice(0, slash), key.slice(slash + 1)] : ['', key];
  if (
    name === '' ||
    !LABEL_PART.test(name) ||
    (slash >= 0 && (prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix)))
  )
    problems.push(`key ${JSON.stringify(key)} is not a qualified name`);
  const value = taint['value'];
  if (value !== undefined && (typeof value !== 'string' || !LABEL_PART.test(value)))
    problems.push(`value ${JSON.stringify(value)} is not a label value`);
  if (!EFFECTS.has(String(taint['effect']))) problems.push(`effect ${JSON.stringify(taint['effect'])}`);
  if (typeof taint['timeAdded'] !== 'string' || Number.isNaN(Date.parse(taint['timeAdded'])))
    problems.push('no timeAdded (the API server sets it, so the next comparison differs)');
  return problems;
}

/**
 * The `device-taints` check of the published slices: every device taint has a qualified-name key, a label value,
 * effect NoSchedule or NoExecute and a `timeAdded`; passed when no device is tainted (a healthy node).
 */
export function checkDeviceTaints(slices: readonly ApiObject[]): ConformanceCheck {
  const { deviceTaints } = draCheckCatalog;
  const problems: string[] = [];
  let count = 0;
  for (const slice of slices)
    for (const device of list((slice['spec'] as Fields | undefined)?.['devices']))
      for (const taint of list(device['taints'])) {
        count += 1;
        const found = taintProblems(taint);
        if (found.length > 0) problems.push(`${String(device['name'])}: ${found.join(', ')}`);
      }
  // A node whose devices are all healthy publishes none: nothing is wrong with its taints.
  if (count === 0) return checkResult(deviceTaints, 'pass', 'no published device has a taint');
  return problems.length === 0
    ? checkResult(deviceTaints, 'pass', `${count} taint(s) well formed`)
    : checkResult(
        deviceTaints,
        'warn',
        `${problems.slice(0, 5).join('; ')}${problems.length > 5 ? ` and ${problems.length - 5} more` : ''}; ` +
          'the API server refuses such a taint (422), or the slice is rewritten on every comparison',
      );
}
