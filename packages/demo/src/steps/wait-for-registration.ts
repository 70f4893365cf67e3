import { now } from '../plugin-processes';
import { ms, type DemoContext } from './demo-context';
import { waitForEachPlugin } from './wait-for-each-plugin';

/**
 * Waits until every plugin registered each of its resources and advertised the expected number of devices, and
 * prints, per plugin, how long that took from its start. Fails naming the plugin and the tail of its log.
 */
export async function waitForRegistration(ctx: DemoContext): Promise<void> {
  const { sim } = ctx;
  const registeredAt = new Map<string, number>();
  const onRegistered = (event: { resource: string; at: number }): void => {
    if (!registeredAt.has(event.resource)) registeredAt.set(event.resource, event.at);
  };
  sim.events.on('registered', onRegistered);
  try {
    await waitForEachPlugin(ctx, {
      ready: (e) => {
        const state = sim.resource(e.resource);
        return state?.registered === true && state.devices.length >= e.devices;
      },
      failure: 'did not register all devices of',
      report: (process, expected) => {
        const parts = expected.map((e) => {
          const count = sim.resource(e.resource)?.devices.length ?? 0;
          const at = registeredAt.get(e.resource) ?? now();
          return `${e.resource} (${count} device${count === 1 ? '' : 's'}) after ${ms(at - process.startedAt)}`;
        });
        return `registered ${parts.join(', ')}`;
      },
    });
  } finally {
    sim.events.off('registered', onRegistered);
  }
}
