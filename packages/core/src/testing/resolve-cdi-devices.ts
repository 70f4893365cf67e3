import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CdiContainerEdits, CdiSpec } from '../cdi/cdi-spec';
import type { DeviceMount, DeviceNode } from '../plugin-device';

/** What a container gets from a set of CDI devices, in the shape of a device-specs answer. */
export interface ResolvedCdiDevices {
  /** Device nodes (host path = the node's `hostPath`, else its `path`), each container path once. */
  readonly devices: DeviceNode[];
  /** Bind mounts, each container path once; `readOnly` from an `ro` option. */
  readonly mounts: DeviceMount[];
  /** `NAME=value` entries of the edits. */
  readonly env: string[];
  /** The spec files the names were found in. */
  readonly files: string[];
}

/**
 * Resolves fully qualified CDI names (`vendor/class=name`) against the `*.json` specs in a directory, as a
 * container runtime's CDI registry does: each name must be defined exactly once; the edits of the spec (its
 * top-level `containerEdits`) and of each device are merged, the first entry per container path winning.
 * Throws naming the first name that does not resolve or is defined twice. For tests of `--device-list-strategy cdi`.
 */
export function resolveCdiDevices(dir: string, names: readonly string[]): ResolvedCdiDevices {
  const found = new Map<string, { file: string; spec: CdiSpec; edits: CdiContainerEdits }[]>();
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.json'))) {
    const spec = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CdiSpec;
    for (const device of spec.devices ?? []) {
      const qualified = `${spec.kind}=${device.name}`;
      found.set(qualified, [...(found.get(qualified) ?? []), { file, spec, edits: device.containerEdits }]);
    }
  }
  const devices = new Map<string, DeviceNode>();
  const mounts = new Map<string, DeviceMount>();
  const env: string[] = [];
  const files = new Set<string>();
  for (const name of names) {
    const entries = found.get(name) ?? [];
    if (entries.length === 0) throw new Error(`CDI device ${name} is not defined in ${dir}`);
    if (entries.length > 1)
      throw new Error(
        `CDI device ${name} is defined ${entries.length} times (${entries.map((e) => e.file).join(', ')})`,
      );
    const [{ file, spec, edits }] = entries as [(typeof entries)[number]];
    files.add(file);
    for (const part of [spec.containerEdits ?? {}, edits]) {
      for (const node of part.deviceNodes ?? []) {
        if (!devices.has(node.path))
          devices.set(node.path, {
            containerPath: node.path,
            hostPath: node.hostPath ?? node.path,
            permissions: node.permissions ?? 'rwm',
          });
      }
      for (const mount of part.mounts ?? []) {
        if (!mounts.has(mount.containerPath))
          mounts.set(mount.containerPath, {
            containerPath: mount.containerPath,
            hostPath: mount.hostPath,
            readOnly: (mount.options ?? []).includes('ro'),
          });
      }
      for (const entry of part.env ?? []) if (!env.includes(entry)) env.push(entry);
    }
  }
  return { devices: [...devices.values()], mounts: [...mounts.values()], env, files: [...files].sort() };
}
