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

/** What {@link runClaimForStatus} claims. */
export interface NetworkClaimOptions {
  /** The DRA driver name; the DeviceClass has this name too. */
  readonly driver: string;
  /** The claim's name; its pod is `<name>-user`, its one request `net`. */
  readonly name: string;
  /** A CEL selector picking one network device of the driver. */
  readonly selector: string;
}

/** A claim's status as the network checks read it (KEP 4817). */
export interface NetworkClaimJson {
  readonly metadata: { readonly uid: string; readonly name: string; readonly namespace: string };
  readonly status?: {
    readonly allocation?: {
      readonly devices: { readonly results: readonly { device: string; pool: string }[] };
    };
    readonly devices?: readonly {
      readonly driver: string;
      readonly pool: string;
      readonly device: string;
      readonly conditions?: readonly { type: string; status: string; reason?: string }[];
      readonly networkData?: { interfaceName?: string; hardwareAddress?: string; ips?: string[] };
    }[];
  };
}

/**
 * Applies, with real kubectl, a DeviceClass for the driver, a claim of one request `net` for the device `selector`
 * picks and a pod using it; waits until the pod runs and the claim's `status.devices` is written, and returns the
 * claim as kubectl reads it.
 */
export async function runClaimForStatus(
  setup: PlaygroundDriver,
  options: NetworkClaimOptions,
): Promise<NetworkClaimJson> {
  const { kubeconfig } = setup;
  const { driver, name } = options;
  await kubectl(
    kubeconfig,
    ['apply', '-f', '-'],
    [
      deviceClassManifest(driver),
      claimManifest(name, claimRequest('net', options.selector, driver)),
      podManifest(`${name}-user`, [name], [[name, 'net']]),
    ].join('---'),
  );
  await waitForPod(kubeconfig, `${name}-user`, (p) => p.status.phase === 'Running');
  const deadline = Date.now() + 30_000;
  for (;;) {
    const claim = await getJson<NetworkClaimJson>(kubeconfig, 'resourceclaim', name);
    if ((claim.status?.devices?.length ?? 0) > 0) return claim;
    if (Date.now() > deadline)
      throw new Error(`claim ${name}: no status.devices in time:\n${JSON.stringify(claim)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
