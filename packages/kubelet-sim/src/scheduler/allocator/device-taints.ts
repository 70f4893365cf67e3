import type { DeviceTaint, DeviceToleration } from '../dra-types';

/** Whether the toleration tolerates the taint (upstream's ToleratesTaint: effect, key, then Exists or Equal). */
export function toleratesTaint(toleration: DeviceToleration, taint: DeviceTaint): boolean {
  if ((toleration.effect ?? '') !== '' && toleration.effect !== taint.effect) return false;
  if ((toleration.key ?? '') !== '' && toleration.key !== taint.key) return false;
  switch (toleration.operator ?? 'Equal') {
    case 'Equal':
      return (toleration.value ?? '') === (taint.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}

/** Whether a NoSchedule or NoExecute taint of the device is not tolerated by the request. */
export function taintPreventsAllocation(
  taints: readonly DeviceTaint[] | undefined,
  tolerations: readonly DeviceToleration[] | undefined,
): boolean {
  return (taints ?? []).some(
    (taint) =>
      (taint.effect === 'NoSchedule' || taint.effect === 'NoExecute') &&
      !(tolerations ?? []).some((t) => toleratesTaint(t, taint)),
  );
}
