import type { Clock, LifecycleLogger } from '@kdp/base';
import type { DevicePluginEvent, ResourceState } from './plugin-events';

/** What {@link createResourceStateTracker} reports to. */
export interface ResourceStateTrackerOptions {
  readonly resource: string;
  readonly clock: Clock;
  readonly logger: LifecycleLogger;
  readonly emit: (event: DevicePluginEvent) => void;
}

/** The lifecycle state of one resource; every change is an event and a debug line. */
export interface ResourceStateTracker {
  current(): ResourceState;
  /** Moves to `to` (nothing happens when already there). */
  set(to: ResourceState, reason: string): void;
}

/** Creates the state of one resource, starting `stopped`. */
export function createResourceStateTracker(options: ResourceStateTrackerOptions): ResourceStateTracker {
  const { resource, clock, logger, emit } = options;
  let state: ResourceState = 'stopped';
  return {
    current: () => state,
    set(to, reason) {
      if (to === state) return;
      const from = state;
      state = to;
      emit({ type: 'state', resource, at: clock.now(), from, to, reason });
      logger.debug({ resource, from, to, reason }, `${resource}: ${from} → ${to}`);
    },
  };
}
