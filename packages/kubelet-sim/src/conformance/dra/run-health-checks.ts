import type { DraHealthEvent } from '../../dra/dra-events';
import { checkResult, seconds } from '../check-catalog';
import type { DraSuite } from './dra-suite';
import { isEvent } from './sim-event-recorder';

/** The health list names exactly the published devices (a warning otherwise). */
function checkHealthDevices(suite: DraSuite, message: DraHealthEvent): void {
  const { catalog, results } = suite;
  if (suite.devices.length === 0) {
    results.skip(catalog.healthDevices, 'not run: no published devices to compare with');
    return;
  }
  const listed = new Set(message.devices.map((d) => `${d.poolName}/${d.deviceName}`));
  const known = new Set(suite.devices.map((d) => `${d.pool}/${d.device}`));
  const missing = [...known].filter((k) => !listed.has(k));
  const extra = [...listed].filter((k) => !known.has(k));
  if (missing.length === 0 && extra.length === 0) {
    results.pass(catalog.healthDevices, `${listed.size} device(s)`);
    return;
  }
  results.add(
    checkResult(
      catalog.healthDevices,
      'warn',
      [
        missing.length === 0 ? '' : `published but not in the health list: ${missing.slice(0, 5).join(', ')}`,
        extra.length === 0 ? '' : `in the health list but not published: ${extra.slice(0, 5).join(', ')}`,
      ]
        .filter((s) => s !== '')
        .join('; '),
    ),
  );
}

/** The health checks (when the driver lists a health service): NodeWatchResources reports every device. */
export async function runHealthChecks(suite: DraSuite): Promise<void> {
  const { catalog, results, driver, patienceMs, registered } = suite;
  if (registered.healthService === undefined) {
    results.skip(catalog.healthStream, 'not run: the driver lists no health service');
    results.skip(catalog.healthDevices, 'not run: the driver lists no health service');
    return;
  }
  const message = await suite.events.seen(
    isEvent('dra-health', (e) => e.driver === driver && e.reason === 'update'),
    patienceMs,
  );
  if (message === undefined) {
    const ended = suite.events.recorded.some(
      isEvent('dra-health', (e) => e.driver === driver && e.reason === 'stream-ended'),
    );
    results.fail(
      catalog.healthStream,
      `${registered.healthService} NodeWatchResources ${ended ? 'ended' : 'sent nothing'} within ${seconds(patienceMs)}`,
    );
    results.skip(catalog.healthDevices, 'not run: no health message');
    return;
  }
  results.pass(catalog.healthStream, `${message.devices.length} device(s) over ${registered.healthService}`);
  checkHealthDevices(suite, message);
}
