import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';

/** A device node a container gets: its path inside the container and the host path it comes from. */
export interface ResolvedDeviceNode {
  /** Path in the container. */
  readonly path: string;
  /** Path on the host (the spec's `hostPath`, else `path`). */
  readonly hostPath: string;
}

/** A bind mount a container gets. */
export interface ResolvedMount {
  /** Path in the container. */
  readonly containerPath: string;
  /** Path on the host. */
  readonly hostPath: string;
  /** Mount options as the spec lists them (`ro`, `bind`, …). */
  readonly options?: readonly string[];
}

/** What a container gets from its CDI devices, as a container runtime applies them. */
export interface ResolvedCdiEdits {
  /** Device nodes, one per container path (a later edit replaces an earlier one). */
  readonly deviceNodes: readonly ResolvedDeviceNode[];
  /** Bind mounts, one per container path. */
  readonly mounts: readonly ResolvedMount[];
  /** `NAME=value`, one per name: a later edit of the same name replaces the earlier one, as the runtime does. */
  readonly env: readonly string[];
}

interface CdiEdits {
  readonly env?: readonly string[];
  readonly deviceNodes?: ReadonlyArray<{ readonly path: string; readonly hostPath?: string }>;
  readonly mounts?: ReadonlyArray<{
    readonly containerPath: string;
    readonly hostPath: string;
    readonly options?: readonly string[];
  }>;
}

interface CdiSpecFile {
  readonly kind?: unknown;
  readonly containerEdits?: CdiEdits;
  readonly devices?: ReadonlyArray<{ readonly name?: unknown; readonly containerEdits?: CdiEdits }>;
}

interface CdiDeviceEntry {
  readonly file: string;
  readonly spec: CdiSpecFile;
  readonly edits: CdiEdits;
}

/** Every device the `*.json` specs in `dir` define, by `kind=name`; a file that does not parse is skipped, as the runtime's registry does. */
function readCdiRegistry(dir: string): Map<string, CdiDeviceEntry> {
  const found = new Map<string, CdiDeviceEntry>();
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json'));
  } catch {
    return found;
  }
  for (const file of names.sort()) {
    let spec: CdiSpecFile;
    try {
      spec = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CdiSpecFile;
    } catch {
      continue;
    }
    if (typeof spec.kind !== 'string') continue;
    for (const device of spec.devices ?? []) {
      if (typeof device.name !== 'string') continue;
      // The CDI cache resolves a name defined twice to the spec read last at the same priority.
      found.set(`${spec.kind}=${device.name}`, { file, spec, edits: device.containerEdits ?? {} });
    }
  }
  return found;
}

/** The file standing for host path `hostPath` (under /dev) in `devRoot`; undefined outside /dev. */
function underDevRoot(devRoot: string, hostPath: string): string | undefined {
  const normalized = posix.normalize(hostPath);
  if (!normalized.startsWith('/dev/')) return undefined;
  return join(devRoot, normalized.slice('/dev/'.length));
}

/**
 * Applies CDI devices (`vendor/class=name`) as a container runtime does: every ID must be defined by a spec
 * in `cdiDir` (else containerd's `unresolvable CDI devices` error); each spec's own `containerEdits` come once,
 * before its first device's; every device node must exist (looked up in `devRoot`, which stands for /dev).
 */
export function resolveCdiDevices(options: {
  readonly cdiDir: string;
  readonly devRoot: string;
  readonly ids: readonly string[];
}): ResolvedCdiEdits {
  const registry = readCdiRegistry(options.cdiDir);
  const unresolved = options.ids.filter((id) => !registry.has(id));
  if (unresolved.length > 0) {
    throw new Error(`CDI device injection failed: unresolvable CDI devices ${options.ids.join(', ')}`);
  }
  const edits: CdiEdits[] = [];
  const specsSeen = new Set<CdiSpecFile>();
  for (const id of options.ids) {
    const entry = registry.get(id) as CdiDeviceEntry;
    if (!specsSeen.has(entry.spec)) {
      specsSeen.add(entry.spec);
      if (entry.spec.containerEdits !== undefined) edits.push(entry.spec.containerEdits);
    }
    edits.push(entry.edits);
  }
  const env = new Map<string, string>();
  const deviceNodes = new Map<string, ResolvedDeviceNode>();
  const mounts = new Map<string, ResolvedMount>();
  for (const edit of edits) {
    for (const entry of edit.env ?? []) env.set(entry.split('=', 1)[0] ?? entry, entry);
    for (const node of edit.deviceNodes ?? []) {
      const hostPath = node.hostPath ?? node.path;
      const local = underDevRoot(options.devRoot, hostPath);
      if (local === undefined || !exists(local)) {
        throw new Error(
          `CDI device injection failed: failed to inject devices: failed to stat CDI host device "${hostPath}": ` +
            `no such file or directory (looked up in ${options.devRoot})`,
        );
      }
      deviceNodes.set(node.path, { path: node.path, hostPath });
    }
    for (const mount of edit.mounts ?? []) {
      mounts.set(mount.containerPath, {
        containerPath: mount.containerPath,
        hostPath: mount.hostPath,
        ...(mount.options === undefined ? {} : { options: [...mount.options] }),
      });
    }
  }
  return { deviceNodes: [...deviceNodes.values()], mounts: [...mounts.values()], env: [...env.values()] };
}

const exists = (path: string): boolean => {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
};
