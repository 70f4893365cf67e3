import type { SliceDeviceTaint } from './pool-slices';
import type { DeviceToleration } from './resource-claim';

/** Whether the toleration tolerates the taint (upstream's `ToleratesTaint`: effect, key, then `Exists` or `Equal`). */
export function toleratesTaint(toleration: DeviceToleration, taint: SliceDeviceTaint): boolean {
  if ((toleration.effect ?? '') !== '' && toleration.effect !== taint.effect) return false;
  if ((toleration.key ?? '') !== '' && toleration.key !== taint.key) return false;
  switch (toleration.operator ?? 'Equal') {
    case 'Exists':
      return true;
    case 'Equal':
      return (toleration.value ?? '') === (taint.value ?? '');
    default:
      return false;
  }
}

/** The taints that no toleration tolerates. */
export function untoleratedTaints(
  taints: readonly SliceDeviceTaint[],
  tolerations: readonly DeviceToleration[] | undefined,
): SliceDeviceTaint[] {
  return taints.filter((taint) => !(tolerations ?? []).some((t) => toleratesTaint(t, taint)));
}

/** A taint as kubectl prints one: `key=value:Effect`. */
export function formatTaint(taint: SliceDeviceTaint): string {
  return `${taint.key}${taint.value !== undefined ? `=${taint.value}` : ''}:${taint.effect}`;
}
