import type { SlicesDeletedEvent } from '../../dra/dra-events';
import { seconds } from '../check-catalog';
import type { DraSuiteBase } from './dra-suite';
import { checkDeviceTaints } from './device-taint-checks';
import { checkSharedCapacity } from './shared-capacity-checks';
import { checkSlices, publishedDevices, type PublishedDevice } from './slice-checks';
import { waitForSlices } from './wait-for-slices';

/**
 * The publication checks: the driver publishes complete pools of valid ResourceSlices for this node.
 * Returns the devices it published (none when it published no slice).
 */
export async function runPublicationChecks(
  suite: DraSuiteBase,
  startWipe: SlicesDeletedEvent | undefined,
): Promise<PublishedDevice[]> {
  const { api, nodeName, driver, catalog, results, publishTimeoutMs } = suite;
  const nodeUid = await api.getNode(nodeName).then(
    (n) => n.metadata.uid,
    () => undefined,
  );
  const published = await waitForSlices(api, nodeName, driver, publishTimeoutMs, suite.signal);
  if (published.slices.length === 0) {
    results.fail(
      catalog.publishes,
      `no ResourceSlice with spec.nodeName=${nodeName} and spec.driver=${driver} within ${seconds(publishTimeoutMs)}` +
        `${published.error === undefined ? '' : ` (last API error: ${published.error})`}; the scheduler sees no devices on this node` +
        `${startWipe === undefined || startWipe.count === 0 ? '' : ` (the kubelet deleted ${startWipe.count} slice(s) of the node at its start: a driver publishes again after that)`}`,
    );
    for (const d of [catalog.slicesValid, catalog.poolConsistent, catalog.sliceSize, catalog.sliceOwner]) {
      results.skip(d, 'not run: no slices');
    }
    results.skip(catalog.standardAttributes, 'not run: no slices');
    results.skip(catalog.deviceTaints, 'not run: no slices');
    results.skip(catalog.sharedCapacity, 'not run: no slices');
    return [];
  }
  const devices = publishedDevices(published.slices);
  results.pass(
    catalog.publishes,
    `${published.slices.length} slice(s), ${devices.length} device(s) after ${published.elapsedMs} ms`,
  );
  for (const check of checkSlices(published.slices, {
    driver,
    node: nodeName,
    ...(nodeUid === undefined ? {} : { nodeUid }),
  }))
    results.add(check);
  results.add(checkDeviceTaints(published.slices));
  results.add(checkSharedCapacity(published.slices));
  return devices;
}
