import { deepStrictEqual, ok, strictEqual } from 'node:assert/strict';
import { resolveCdiDevices } from '@kdp/core/testing';
import { ContainerDevicesAnnotation, type ContainerDevices } from '@kdp/kubelet-sim';
import {
  claimManifest,
  claimRequest,
  deviceClassManifest,
  getJson,
  kubectl,
  podManifest,
  waitForPod,
} from './playground-pod-checks';
import type { PlaygroundDriver } from './start-playground-driver';

/** What {@link checkSharedDevice} claims of a driver's shared device. */
export interface SharedDeviceCheckOptions {
  /** The DRA driver name; the DeviceClass has this name too. */
  readonly driver: string;
  /** A prefix for the claims' and pods' names, unique in the test. */
  readonly name: string;
  /** What each claim that fits requests (`capacity.requests`), e.g. `{ timeSlices: '1' }`. */
  readonly requests: Readonly<Record<string, string>>;
  /** How many claims of `requests` the device takes. */
  readonly fits: number;
  /** What a further claim requests that the device has no room left for. */
  readonly excess: Readonly<Record<string, string>>;
  /** Env each share's container must get (`KDP_GPU_TIME_SLICES=1/4`), besides its device's. */
  readonly shareEnv?: readonly string[] | undefined;
}

/** The result of a claim the check reads. */
export interface SharedResultJson {
  readonly request: string;
  readonly driver: string;
  readonly pool: string;
  readonly device: string;
  readonly shareID?: string;
  readonly consumedCapacity?: Record<string, string>;
}

/** A claim of one request `share` for a share of `requests` of a device of the driver. */
const sharedClaim = (name: string, driver: string, requests: Readonly<Record<string, string>>): string =>
  claimManifest(name, claimRequest('share', undefined, driver, requests));

interface ClaimJson {
  metadata: { uid: string };
  status?: { allocation?: { devices: { results: SharedResultJson[] } } };
}

/**
 * Shared capacity (KEP 5075) through the playground with real kubectl: `fits` claims each requesting `requests`
 * of one device that allows multiple allocations are all allocated to that same device, each with its own
 * `shareID` and `consumedCapacity`, and their pods run, each container with its own CDI device (distinct IDs)
 * and `shareEnv`; a further claim requesting `excess` leaves its pod Pending with the scheduler's reason.
 * Returns the fitting claims' results.
 */
export async function checkSharedDevice(
  setup: PlaygroundDriver,
  options: SharedDeviceCheckOptions,
): Promise<SharedResultJson[]> {
  const { kubeconfig } = setup;
  const { driver, name } = options;
  const names = Array.from({ length: options.fits }, (_, i) => `${name}-${i + 1}`);
  await kubectl(
    kubeconfig,
    ['apply', '-f', '-'],
    [
      deviceClassManifest(driver),
      ...names.flatMap((n) => [
        sharedClaim(n, driver, options.requests),
        podManifest(n, [n], [[n, 'share']]),
      ]),
    ].join('---'),
  );
  const results: SharedResultJson[] = [];
  const cdiIds: string[] = [];
  for (const n of names) {
    const pod = await waitForPod(kubeconfig, n, (p) => p.status.phase === 'Running');
    strictEqual(pod.spec.nodeName, setup.nodeName);
    const claim = await getJson<ClaimJson>(kubeconfig, 'resourceclaim', n);
    const [result, ...more] = claim.status?.allocation?.devices.results ?? [];
    ok(result !== undefined && more.length === 0, `claim ${n}: not one result`);
    ok(result.shareID !== undefined, `claim ${n}: no shareID`);
    for (const [capacity, value] of Object.entries(options.requests))
      ok(
        result.consumedCapacity?.[capacity] !== undefined,
        `claim ${n}: no consumedCapacity ${capacity}=${value}`,
      );
    results.push(result);
    const annotation = pod.metadata.annotations?.[ContainerDevicesAnnotation];
    ok(annotation !== undefined, `pod ${n} has no ${ContainerDevicesAnnotation} annotation`);
    const [container] = JSON.parse(annotation) as ContainerDevices[];
    ok(container !== undefined);
    deepStrictEqual(
      container.cdiDevices.map((id) => id.split('=')[1]),
      [`${claim.metadata.uid}-${result.device}-${result.shareID}`],
      `pod ${n}: CDI devices ${container.cdiDevices.join(', ')}`,
    );
    cdiIds.push(...container.cdiDevices);
    const env = resolveCdiDevices(setup.cdiDir, container.cdiDevices).env;
    for (const entry of options.shareEnv ?? [])
      ok(env.includes(entry), `pod ${n}: no ${entry} in ${env.join(' ')}`);
  }
  const devices = new Set(results.map((r) => `${r.driver}/${r.pool}/${r.device}`));
  strictEqual(devices.size, 1, `the claims got several devices: ${[...devices].join(', ')}`);
  strictEqual(new Set(results.map((r) => r.shareID)).size, names.length, 'two claims got one share');
  strictEqual(new Set(cdiIds).size, cdiIds.length, `CDI IDs collide: ${cdiIds.join(', ')}`);

  const over = `${name}-over`;
  await kubectl(
    kubeconfig,
    ['apply', '-f', '-'],
    [sharedClaim(over, driver, options.excess), podManifest(over, [over], [[over, 'share']])].join('---'),
  );
  const stuck = await waitForPod(kubeconfig, over, (p) =>
    (p.status.conditions ?? []).some((c) => c.type === 'PodScheduled' && c.status === 'False'),
  );
  strictEqual(stuck.spec.nodeName, undefined);
  const scheduled = stuck.status.conditions?.find((c) => c.type === 'PodScheduled');
  strictEqual(scheduled?.reason, 'Unschedulable');
  ok(
    /cannot allocate all claims/.test(scheduled.message ?? ''),
    `PodScheduled message: ${String(scheduled.message)}`,
  );
  return results;
}
