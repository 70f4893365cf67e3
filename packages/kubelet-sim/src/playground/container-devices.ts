import type { PreparedClaim, PreparedDevice } from '../dra/dra-events';
import { resolveCdiDevices, type ResolvedCdiEdits } from './cdi-resolver';
import type { ContainerClaimRef, PodObject } from './pod-object';

/** What one container of a playground pod got through DRA: its claims, CDI devices and their edits. */
export interface ContainerDevices extends ResolvedCdiEdits {
  /** The container's name. */
  readonly name: string;
  /** `resources.claims[]` with the ResourceClaim each one named. */
  readonly claims: ReadonlyArray<ContainerClaimRef & { readonly resourceClaimName: string }>;
  /** The CDI device IDs handed to the runtime, in the kubelet's order. */
  readonly cdiDevices: readonly string[];
}

/** A container the runtime could not create: its CDI devices did not apply. */
export class ContainerCreateError extends Error {
  constructor(
    readonly container: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'ContainerCreateError';
  }
}

/**
 * The CDI IDs of a claim's devices for a container's `request`, as the kubelet's `cdiDevicesAsList`: every
 * device when the container names no request, a device listing no request names, or one whose
 * `requestNames` contain the request exactly.
 */
export function cdiDevicesForRequest(
  devices: readonly PreparedDevice[],
  request: string | undefined,
): string[] {
  return devices
    .filter(
      (d) =>
        request === undefined ||
        request === '' ||
        d.requestNames.length === 0 ||
        d.requestNames.includes(request),
    )
    .flatMap((d) => d.cdiDeviceIds);
}

/**
 * Each container's CDI devices, as the kubelet's `GetResources`: for every pod claim in `spec.resourceClaims`
 * order, every `resources.claims[]` entry of the container naming it adds the prepared devices of that
 * ResourceClaim for its request. Throws the kubelet's message when a claim is not prepared.
 */
function containerCdiIds(
  container: NonNullable<NonNullable<PodObject['spec']>['containers']>[number],
  claimNames: ReadonlyMap<string, string | null>,
  prepared: readonly PreparedClaim[],
): Pick<ContainerDevices, 'claims' | 'cdiDevices'> {
  const claims: Array<ContainerClaimRef & { resourceClaimName: string }> = [];
  const cdiDevices: string[] = [];
  for (const [podClaim, claimName] of claimNames) {
    if (claimName === null) continue;
    for (const ref of container.resources?.claims ?? []) {
      if (ref.name !== podClaim) continue;
      const info = prepared.find((c) => c.name === claimName);
      if (info === undefined) throw new Error(`unable to get information for ResourceClaim ${claimName}`);
      claims.push({ ...ref, resourceClaimName: claimName });
      cdiDevices.push(...cdiDevicesForRequest(info.devices, ref.request));
    }
  }
  return { claims, cdiDevices };
}

/**
 * Resolves every container's devices and applies their CDI specs (from `cdiDir`, device nodes checked in
 * `devRoot`); throws a {@link ContainerCreateError} with the runtime's message for the first container that
 * cannot be created.
 */
export function resolveContainerDevices(options: {
  readonly pod: PodObject;
  readonly claimNames: ReadonlyMap<string, string | null>;
  readonly prepared: readonly PreparedClaim[];
  readonly cdiDir: string;
  readonly devRoot: string;
}): ContainerDevices[] {
  return (options.pod.spec?.containers ?? []).map((container) => {
    const { claims, cdiDevices } = containerCdiIds(container, options.claimNames, options.prepared);
    let edits: ResolvedCdiEdits = { deviceNodes: [], mounts: [], env: [] };
    if (cdiDevices.length > 0) {
      try {
        edits = resolveCdiDevices({ cdiDir: options.cdiDir, devRoot: options.devRoot, ids: cdiDevices });
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        throw new ContainerCreateError(container.name, message, { cause: err });
      }
    }
    return { name: container.name, claims, cdiDevices, ...edits };
  });
}
