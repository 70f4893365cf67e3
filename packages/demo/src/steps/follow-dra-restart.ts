import { readdirSync } from 'node:fs';
import type { SimEvent } from '@kdp/kubelet-sim';
import { now } from '../plugin-processes';
import { waitUntil } from '../wait-until';
import { logTail, ms, type DemoContext } from './demo-context';
import { describePrepared, untilPublished, type DraPod, type DraSide } from './dra-side';

/** What {@link followDraRestart} returns: `report()` waits for the DRA side to be back and prints it. */
export interface DraRestartFollower {
  report(): Promise<void>;
}

/**
 * Follows the DRA side through a kubelet restart (call it before the restart): the kubelet deletes the node's
 * ResourceSlices and the driver publishes them again, the driver registers again, and the kubelet prepares the
 * running pod's claim again with the same device and CDI IDs; times are from `kubelet.sock` coming back.
 * `report()` prints that once it happened, then ends the pod: its claim is unprepared and its CDI spec removed.
 */
export function followDraRestart(ctx: DemoContext, dra: DraSide, held: DraPod): DraRestartFollower {
  const { sim } = ctx;
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
    const again = await waitUntil(
      sim,
      () => first('dra-prepared', (e) => e.podUid === held.pod.uid),
      ctx.timeoutMs,
      () =>
        `the restarted kubelet did not prepare pod ${held.pod.name}'s claim again within ${ctx.timeoutMs / 1000} s` +
        `${first('dra-prepare-failed', (e) => e.podUid === held.pod.uid)?.message ?? ''}; the last lines of the driver's log:\n${logTail(dra.process)}`,
    );
    if (describePrepared(again.claims) !== held.prepared)
      throw new Error(
        `pod ${held.pod.name}'s claim was prepared again with other devices: ${describePrepared(again.claims)}`,
      );
    return { wiped, devices: [...pools.values()].flat().length, republished, again };
  })().finally(() => sim.events.off('event', record));
  back.catch(() => undefined); // awaited by report(); this only keeps an early failure from going unhandled
  return {
    async report() {
      const { wiped, devices, republished, again } = await back;
      const restarted = first('restarted', () => true)?.at ?? wiped.at;
      const registered = first('dra-registered', (e) => e.driver === dra.driver);
      const after = (at: number): string => ms(at - restarted);
      const indent = ' '.repeat(13);
      ctx.view.log(
        `  ${dra.driver}: ${registered === undefined ? 'still registered' : `registered again after ${after(registered.at)}`}; ` +
          `the kubelet deleted the node's ${wiped.count} ResourceSlices, the driver published its ${devices} devices again after ${after(republished)}`,
        `${indent}pod ${held.pod.name}: claim ${held.claim} prepared again after ${after(again.at)}, the same device and CDI IDs`,
      );
      const start = now();
      await sim.deletePod(held.pod.name);
      const left = readdirSync(dra.cdiDir).filter((file) => file.includes(held.uid));
      ctx.view.log(
        `${indent}pod ${held.pod.name} ended: claim unprepared in ${ms(now() - start)}, ` +
          (left.length === 0 ? 'its CDI spec removed' : `its CDI spec still there: ${left.join(', ')}`),
      );
    },
  };
}
