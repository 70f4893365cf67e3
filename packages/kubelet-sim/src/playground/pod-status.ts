import type { PodCondition, PodObject } from './pod-object';

/** The RFC 3339 time of `ms`, to the second, as Kubernetes writes it. */
export const kubeTime = (ms: number): string =>
  new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/** How far the kubelet got with a pod. */
export type PodProgress =
  | { readonly state: 'running' }
  /** Claims not prepared: the pod sandbox is not created, containers wait in `ContainerCreating`. */
  | { readonly state: 'preparing' }
  /** A container could not be created (its CDI devices do not apply): `CreateContainerError`. */
  | { readonly state: 'create-failed'; readonly container: string; readonly message: string };

/** A condition of `type`, keeping the old transition time when its status did not change. */
function condition(
  old: readonly PodCondition[],
  type: string,
  ok: boolean,
  now: string,
  reason?: string,
): PodCondition {
  const status = ok ? 'True' : 'False';
  const before = old.find((c) => c.type === type);
  return {
    type,
    status,
    lastProbeTime: null,
    lastTransitionTime: before?.status === status ? (before.lastTransitionTime ?? now) : now,
    ...(ok || reason === undefined ? {} : { reason }),
  };
}

/**
 * The status the kubelet writes for a bound pod: phase, the conditions it owns (PodReadyToStartContainers,
 * Initialized, Ready, ContainersReady; PodScheduled kept as the scheduler wrote it) and a status per container.
 */
export function kubeletPodStatus(pod: PodObject, progress: PodProgress, nowMs: number): PodObject['status'] {
  const now = kubeTime(nowMs);
  const old = pod.status?.conditions ?? [];
  const running = progress.state === 'running';
  const sandbox = progress.state !== 'preparing';
  const scheduled = old.find((c) => c.type === 'PodScheduled') ?? {
    type: 'PodScheduled',
    status: 'True',
    lastProbeTime: null,
    lastTransitionTime: now,
  };
  const containerStatuses = (pod.spec?.containers ?? []).map((c) => {
    const failed = progress.state === 'create-failed' && progress.container === c.name;
    const waiting = failed
      ? { reason: 'CreateContainerError', message: progress.message }
      : { reason: 'ContainerCreating' };
    return {
      name: c.name,
      image: c.image ?? '',
      imageID: '',
      ready: running,
      started: running,
      restartCount: 0,
      ...(running ? { containerID: `kubelet-sim://${pod.metadata.uid ?? ''}/${c.name}` } : {}),
      state: running ? { running: { startedAt: now } } : { waiting },
    };
  });
  const oldStatus = pod.status ?? {};
  return {
    ...oldStatus,
    phase: running ? 'Running' : 'Pending',
    conditions: [
      condition(old, 'PodReadyToStartContainers', sandbox, now),
      condition(old, 'Initialized', true, now),
      condition(old, 'Ready', running, now, 'ContainersNotReady'),
      condition(old, 'ContainersReady', running, now, 'ContainersNotReady'),
      scheduled,
    ],
    hostIP: '127.0.0.1',
    qosClass: 'BestEffort',
    startTime: (oldStatus['startTime'] as string | undefined) ?? now,
    containerStatuses,
  };
}
