import { ok } from 'node:assert/strict';
import type { ClaimConfigKind } from '@kdp/core';
import { ContainerDevicesAnnotation, type ContainerDevices } from '@kdp/kubelet-sim';
import { claimConfigPolicy } from '../claim-config-policy';
import { kubectl } from './playground-pod-checks';
import type { PlaygroundDriver } from './start-playground-driver';

/** A claim of one request with an opaque configuration for its driver, for the configuration checks. */
export interface ConfiguredClaim {
  readonly name: string;
  /** The DRA driver; a DeviceClass of this name selects its devices. */
  readonly driver: string;
  /** A CEL selector the one device must meet (default: any device of the class). */
  readonly selector?: string;
  /** `opaque.parameters` of the one configuration entry (applying to all requests). */
  readonly parameters: Readonly<Record<string, unknown>>;
}

/** The claim as a `resource.k8s.io/v1` ResourceClaim (JSON, which kubectl reads as it reads YAML). */
export function configuredClaimManifest(claim: ConfiguredClaim): string {
  return JSON.stringify({
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceClaim',
    metadata: { name: claim.name },
    spec: {
      devices: {
        requests: [
          {
            name: 'dev',
            exactly: {
              deviceClassName: claim.driver,
              ...(claim.selector === undefined
                ? {}
                : { selectors: [{ cel: { expression: claim.selector } }] }),
            },
          },
        ],
        config: [{ opaque: { driver: claim.driver, parameters: claim.parameters } }],
      },
    },
  });
}

const podManifest = (pod: string, claim: string): string =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: pod },
    spec: {
      resourceClaims: [{ name: claim, resourceClaimName: claim }],
      containers: [
        {
          name: 'main',
          image: 'registry.k8s.io/pause:3.10',
          resources: { claims: [{ name: claim, request: 'dev' }] },
        },
      ],
    },
  });

const deviceClass = (driver: string): string =>
  JSON.stringify({
    apiVersion: 'resource.k8s.io/v1',
    kind: 'DeviceClass',
    metadata: { name: driver },
    spec: { selectors: [{ cel: { expression: `device.driver == "${driver}"` } }] },
  });

/** `kubectl apply`s the driver's ValidatingAdmissionPolicy and binding, generated from its kinds, and its DeviceClass. */
export async function installClaimConfigPolicy(
  setup: PlaygroundDriver,
  driver: string,
  kinds: readonly ClaimConfigKind[],
): Promise<void> {
  const objects = [...claimConfigPolicy(driver, kinds), JSON.parse(deviceClass(driver)) as unknown];
  await kubectl(
    setup.kubeconfig,
    ['apply', '-f', '-'],
    objects.map((o) => JSON.stringify(o)).join('\n---\n'),
  );
}

/** `kubectl create`s the claim, expecting the API server to refuse it; resolves with kubectl's error output. */
export async function createRefused(setup: PlaygroundDriver, claim: ConfiguredClaim): Promise<string> {
  try {
    await kubectl(setup.kubeconfig, ['create', '-f', '-'], configuredClaimManifest(claim));
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`kubectl create of claim ${claim.name} was not refused`);
}

/** A pod that ran: its one container's devices and environment, and its claim's UID. */
export interface RunningClaimPod {
  readonly container: ContainerDevices;
  readonly claimUid: string;
  /** The allocated device's DRA name. */
  readonly device: string;
}

interface PodJson {
  metadata: { annotations?: Record<string, string> };
  status: { phase?: string };
}

/** `kubectl create`s the claim (if `create`) and a pod naming it; resolves once the pod runs. */
export async function runClaimPod(
  setup: PlaygroundDriver,
  claim: ConfiguredClaim,
  pod: string,
  create = true,
): Promise<RunningClaimPod> {
  const { kubeconfig } = setup;
  if (create) await kubectl(kubeconfig, ['create', '-f', '-'], configuredClaimManifest(claim));
  await kubectl(kubeconfig, ['create', '-f', '-'], podManifest(pod, claim.name));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const got = JSON.parse(await kubectl(kubeconfig, ['get', 'pod', pod, '-o', 'json'])) as PodJson;
    const annotation = got.metadata.annotations?.[ContainerDevicesAnnotation];
    if (got.status.phase === 'Running' && annotation !== undefined) {
      const [container] = JSON.parse(annotation) as ContainerDevices[];
      ok(container !== undefined, `pod ${pod} has no container devices`);
      const stored = JSON.parse(
        await kubectl(kubeconfig, ['get', 'resourceclaim', claim.name, '-o', 'json']),
      ) as {
        metadata: { uid: string };
        status: { allocation: { devices: { results: { device: string }[] } } };
      };
      const device = stored.status.allocation.devices.results[0]?.device ?? '';
      return { container, claimUid: stored.metadata.uid, device };
    }
    if (Date.now() > deadline) throw new Error(`pod ${pod} not Running in time:\n${JSON.stringify(got)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Resolves with the message of the pod's first Event of `reason` (the kubelet's FailedPrepareDynamicResources). */
export async function podEvent(setup: PlaygroundDriver, pod: string, reason: string): Promise<string> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const events = JSON.parse(
      await kubectl(setup.kubeconfig, [
        'get',
        'events',
        '--field-selector',
        `involvedObject.name=${pod}`,
        '-o',
        'json',
      ]),
    ) as { items: { reason?: string; message?: string }[] };
    const found = events.items.find((e) => e.reason === reason);
    if (found !== undefined) return found.message ?? '';
    if (Date.now() > deadline) throw new Error(`no ${reason} event of pod ${pod} in time`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** `kubectl create`s the claim and a pod naming it, without waiting. */
export async function createClaimPod(
  setup: PlaygroundDriver,
  claim: ConfiguredClaim,
  pod: string,
): Promise<void> {
  await kubectl(setup.kubeconfig, ['create', '-f', '-'], configuredClaimManifest(claim));
  await kubectl(setup.kubeconfig, ['create', '-f', '-'], podManifest(pod, claim.name));
}
