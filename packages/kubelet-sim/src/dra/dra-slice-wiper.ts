import { DraApiError } from './dra-api-client';
import type { DraManagerState } from './dra-manager-state';

/** Deleting the node's ResourceSlices, as the kubelet does at start and for a driver gone too long. */
export interface DraSliceWiper {
  /** Deletes the node's slices (one driver's, or all), retrying with backoff until it works or the kubelet stops. */
  wipe(driver: string | undefined, reason: 'kubelet-start' | 'driver-gone'): void;
  /** The kubelet's sync: a driver with no connected endpoint gets its slices deleted after the wipe delay. */
  syncDriver(driver: string): void;
}

/** Creates the slice wiper of a DRA manager (nothing happens without an API server). */
export function createDraSliceWiper(options: { readonly state: DraManagerState }): DraSliceWiper {
  const { state } = options;
  const { api, nodeName, emit, clock } = state.options;

  const wipe: DraSliceWiper['wipe'] = (driver, reason) => {
    if (api === undefined) return;
    const started = state.generation;
    let delay = 1000;
    const attempt = async (): Promise<void> => {
      if (started !== state.generation) return;
      try {
        await api.getNode(nodeName);
        const count = await api.deleteSlices(nodeName, driver);
        if (started !== state.generation) return;
        emit('slices-deleted', {
          node: nodeName,
          ...(driver === undefined ? {} : { driver }),
          reason,
          count,
        });
      } catch (err) {
        if (err instanceof DraApiError && err.code === 404 && driver !== undefined) return;
        const timer = setTimeout(() => void attempt(), delay);
        timer.unref();
        delay = Math.min(delay * 2, 30_000);
      }
    };
    void attempt();
  };

  const syncDriver: DraSliceWiper['syncDriver'] = (driver) => {
    if (api === undefined) return;
    const usable = (state.drivers.get(driver) ?? []).some((e) => e.connected);
    const pending = state.pendingWipes.get(driver);
    if (usable) {
      if (pending !== undefined) clock.clearTimeout(pending);
      state.pendingWipes.delete(driver);
      return;
    }
    if (pending !== undefined) return;
    state.pendingWipes.set(
      driver,
      clock.setTimeout(() => {
        state.pendingWipes.delete(driver);
        wipe(driver, 'driver-gone');
      }, state.options.wipeDelayMs),
    );
  };

  return { wipe, syncDriver };
}
