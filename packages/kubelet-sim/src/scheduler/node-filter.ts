import type { Node, Pod, PodToleration } from './pod-types';

const tolerates = (t: PodToleration, taint: { key: string; value?: string; effect: string }): boolean => {
  if ((t.effect ?? '') !== '' && t.effect !== taint.effect) return false;
  if ((t.key ?? '') !== '' && t.key !== taint.key) return false;
  return (t.operator ?? 'Equal') === 'Exists' || (t.value ?? '') === (taint.value ?? '');
};

/** The node's taints, with `node.kubernetes.io/not-ready` for a node whose Ready condition is not True. */
const taintsOf = (node: Node): { key: string; value?: string; effect: string }[] => {
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  const notReady = ready !== undefined && ready.status !== 'True';
  return [
    ...(node.spec?.taints ?? []),
    ...(notReady ? [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }] : []),
  ];
};

/**
 * The reason the node does not fit the pod before DRA is asked, as the filter plugins word it (first failing
 * plugin wins: NodeUnschedulable, NodeAffinity, TaintToleration), or undefined.
 */
export function nodeFilterReason(pod: Pod, node: Node): string | undefined {
  const tolerations = pod.spec.tolerations ?? [];
  const unschedulableTaint = { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' };
  if (node.spec?.unschedulable === true && !tolerations.some((t) => tolerates(t, unschedulableTaint)))
    return 'node(s) were unschedulable';
  const labels = node.metadata.labels ?? {};
  if (Object.entries(pod.spec.nodeSelector ?? {}).some(([k, v]) => labels[k] !== v))
    return "node(s) didn't match Pod's node affinity/selector";
  const blocking = taintsOf(node).filter((t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute');
  if (blocking.some((taint) => !tolerations.some((t) => tolerates(t, taint))))
    return 'node(s) had untolerated taint(s)';
  return undefined;
}

/**
 * kube-scheduler's FitError message: `0/N nodes are available: <PreFilter message | sorted "count reason" list>.`
 * followed by the PostFilter messages (DRA's, then preemption's, which is never helpful here).
 */
export function fitErrorMessage(
  nodes: number,
  filtered: { readonly preFilter?: string; readonly reasons?: readonly string[] },
  postFilter: string | undefined,
): string {
  let message = `0/${nodes} nodes are available:`;
  if (filtered.preFilter !== undefined) message += ` ${filtered.preFilter}.`;
  else {
    const counts = new Map<string, number>();
    for (const r of filtered.reasons ?? []) counts.set(r, (counts.get(r) ?? 0) + 1);
    const histogram = [...counts].map(([r, n]) => `${n} ${r}`).sort();
    if (histogram.length > 0) message += ` ${histogram.join(', ')}.`;
  }
  const preemption = `preemption: 0/${nodes} nodes are available: ${nodes} Preemption is not helpful for scheduling`;
  return `${message} ${postFilter === undefined ? '' : `${postFilter}, `}${preemption}.`;
}
