import type {
  AnyResourceDeclaration,
  CdiContainerEdits,
  ClaimConfigKind,
  ClaimConfigValue,
  PluginDevice,
} from '@kdp/core';
import { baseRequestName } from './base-request-name';
import type { DriverConfig } from './claim-config';
import { createClaimConfigDecoder } from './decode-claim-config';

/** What a device's configuration did: its environment, and whether the resource's PreStartContainer work is done. */
export interface AppliedClaimConfig {
  readonly env: Readonly<Record<string, string>>;
  readonly prepared: boolean;
}

const nothing: AppliedClaimConfig = { env: {}, prepared: false };

/** The configuration kinds of a driver's resources, once each (by apiVersion and kind). */
export function driverConfigKinds(declarations: Iterable<AnyResourceDeclaration>): ClaimConfigKind[] {
  const kinds = new Map<string, ClaimConfigKind>();
  for (const declaration of declarations)
    for (const kind of declaration.dra?.config?.kinds ?? [])
      kinds.set(`${kind.apiVersion}/${kind.kind}`, kind);
  return [...kinds.values()];
}

/**
 * Decodes an opaque configuration entry of a plugin's driver strictly with the kinds its resources take now; a
 * driver whose resources take none refuses every entry, as a driver without configuration.
 */
export function decodePluginConfig(
  kinds: readonly ClaimConfigKind[],
  driver: string,
  parameters: unknown,
): ClaimConfigValue {
  if (kinds.length === 0) throw new Error(`driver ${driver} takes no opaque configuration`);
  return createClaimConfigDecoder(kinds)(parameters);
}

/**
 * Applies the claim's configuration to one device of a resource at prepare: the entries for its request (empty
 * `requests`: all; class entries first, later ones win) go to the resource's `dra.config.apply`. An entry of a kind
 * the resource does not take fails the claim.
 */
export async function applyClaimConfig(
  declaration: AnyResourceDeclaration,
  config: readonly DriverConfig[],
  target: { request: string; device: PluginDevice<unknown>; deviceName: string },
  signal: AbortSignal,
): Promise<AppliedClaimConfig> {
  const { request, device, deviceName } = target;
  const own = config.filter(
    (entry) =>
      entry.requests.length === 0 ||
      entry.requests.includes(request) ||
      entry.requests.includes(baseRequestName(request)),
  );
  if (own.length === 0) return nothing;
  const hook = declaration.dra?.config;
  const values = own.map((entry) => entry.parameters as ClaimConfigValue);
  for (const value of values)
    if (!hook?.kinds.some((k) => k.apiVersion === value.apiVersion && k.kind === value.kind))
      throw new Error(
        `configuration ${value.apiVersion} ${value.kind} does not apply to device ${deviceName} of resource ${declaration.name}` +
          ` (it takes ${hook === undefined ? 'no configuration' : hook.kinds.map((k) => k.kind).join(', ')})`,
      );
  if (hook === undefined) return nothing;
  const effect = await hook.apply({ resource: declaration.name, device, deviceName, config: values, signal });
  return { env: effect.env ?? {}, prepared: effect.prepared === true };
}

/** A device's CDI edits with the configuration's environment added (a name the device sets already is replaced). */
export function withConfigEnv(
  edits: CdiContainerEdits | undefined,
  env: Readonly<Record<string, string>>,
): CdiContainerEdits | undefined {
  const names = Object.keys(env);
  if (names.length === 0) return edits;
  const kept = (edits?.env ?? []).filter((entry) => !names.includes(entry.slice(0, entry.indexOf('='))));
  return { ...edits, env: [...kept, ...names.map((name) => `${name}=${env[name]}`)] };
}
