import type { SimEvent } from '@kdp/kubelet-sim';
import { now } from '../plugin-processes';
import { waitUntil } from '../wait-until';
import { ms, type DemoContext } from './demo-context';
import { untilPublished, type DraSide } from './dra-side';

/** What {@link followDraRestart} returns: `report()` waits for the DRA side to be back and prints it. */
export interface DraRestartFollower {
  report(): Promise<void>;
}

/**
 * Follows the playground node's kubelet through a restart (call it before the restart): the kubelet deletes the
 * node's ResourceSlices, the driver registers again and publishes them again; times are from the restart.
 * `report()` prints that once it happened.
 */
export function followDraRestart(ctx: DemoContext, dra: DraSide): DraRestartFollower {
  const { sim } = dra;
  const seen: SimEvent[] = [];
  const record = (event: SimEvent): void => void seen.push(event);
  sim.events.on('event', record);
  const first = <T extends SimEvent['type']>(type: T, test: (e: Extract<SimEvent, { type: T }>) => boolean) =>
    seen.find(
      (e): e is Extract<SimEvent, { type: T }> =>
        e.type === type && test(e as Extract<SimEvent, { type: T }>),
    );
  const back = (async () => {
    const wiped = await waitUntil(
      sim,
      () => first('slices-deleted', (e) => e.reason === 'kubelet-start'),
      ctx.timeoutMs,
      () => `the restarted kubelet did not delete the node's ResourceSlices within ${ctx.timeoutMs / 1000} s`,
    );
    const pools = await untilPublished(ctx, dra, 'did not publish its ResourceSlices again');
    const republished = now();
    return { wiped, devices: [...pools.values()].flat().length, republished };
  })().finally(() => sim.events.off('event', record));
  back.catch(() => undefined); // awaited by report(); this only keeps an early failure from going unhandled
  return {
    async report() {
      const { wiped, devices, republished } = await back;
      const restarted = first('restarted', () => true)?.at ?? wiped.at;
      const registered = first('dra-registered', (e) => e.driver === dra.driver);
      const after = (at: number): string => ms(at - restarted);
      ctx.view.log(
        `  ${dra.driver}: ${registered === undefined ? 'still registered' : `registered again after ${after(registered.at)}`}; ` +
          `the kubelet deleted the node's ${wiped.count} ResourceSlices, the driver published its ${devices} devices again after ${after(republished)}`,
      );
    },
  };
}
