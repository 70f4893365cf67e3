/** The current CDI specification version (cncf-tags/container-device-interface SPEC.md, v1.1.0). */
export const CDI_SPEC_VERSION = '1.1.0';

/** A device node to create in the container (CDI `deviceNodes[]`). */
export interface CdiDeviceNode {
  /** Path in the container. */
  readonly path: string;
  /** Path on the host when it differs from `path`. */
  readonly hostPath?: string;
  /** `b`, `c` or `u`; the runtime reads it from the host node when absent. */
  readonly type?: string;
  readonly major?: number;
  readonly minor?: number;
  readonly fileMode?: number;
  /** cgroup permissions, one or more of `r`, `w`, `m`. */
  readonly permissions?: string;
  readonly uid?: number;
  readonly gid?: number;
}

/** A mount (CDI `mounts[]`). */
export interface CdiMount {
  readonly hostPath: string;
  readonly containerPath: string;
  readonly type?: string;
  readonly options?: readonly string[];
}

/** An OCI hook (CDI `hooks[]`). */
export interface CdiHook {
  /** `createRuntime`, `createContainer`, `startContainer`, `poststart` or `poststop`. */
  readonly hookName: string;
  readonly path: string;
  readonly args?: readonly string[];
  readonly env?: readonly string[];
  readonly timeout?: number;
}

/** Edits applied to a container's OCI spec (CDI `containerEdits`). */
export interface CdiContainerEdits {
  /** `NAME=value` entries. */
  readonly env?: readonly string[];
  readonly deviceNodes?: readonly CdiDeviceNode[];
  readonly mounts?: readonly CdiMount[];
  readonly hooks?: readonly CdiHook[];
  readonly additionalGids?: readonly number[];
}

/** One device of a CDI spec. */
export interface CdiDevice {
  /** The device name (the part after `=` in `vendor/class=name`). */
  readonly name: string;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly containerEdits: CdiContainerEdits;
}

/** A whole CDI spec file. */
export interface CdiSpec {
  readonly cdiVersion: string;
  readonly kind: string;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly devices: readonly CdiDevice[];
  readonly containerEdits?: CdiContainerEdits;
}

const HOOK_NAMES = new Set([
  'createRuntime',
  'createContainer',
  'startContainer',
  'poststart',
  'poststop',
  'prestart',
]);

/** Every problem in a spec's edits (absolute paths, `NAME=value` env, permissions, hook names, timeouts). */
export function checkCdiContainerEdits(edits: CdiContainerEdits, where: string): string[] {
  const problems: string[] = [];
  const abs = (path: string, field: string) => {
    if (!path.startsWith('/'))
      problems.push(`${where}.${field}: ${JSON.stringify(path)} is not an absolute path`);
  };
  edits.env?.forEach((e, i) => {
    if (!/^[^=\0]+=/.test(e)) problems.push(`${where}.env[${i}]: ${JSON.stringify(e)} is not NAME=value`);
  });
  edits.deviceNodes?.forEach((n, i) => {
    abs(n.path, `deviceNodes[${i}].path`);
    if (n.hostPath !== undefined) abs(n.hostPath, `deviceNodes[${i}].hostPath`);
    if (n.permissions !== undefined && !/^[rwm]{1,3}$/.test(n.permissions)) {
      problems.push(
        `${where}.deviceNodes[${i}].permissions: ${JSON.stringify(n.permissions)} is not made of r, w, m`,
      );
    }
    if (n.type !== undefined && !['b', 'c', 'u', 'p'].includes(n.type)) {
      problems.push(`${where}.deviceNodes[${i}].type: ${JSON.stringify(n.type)} is not b, c, u or p`);
    }
  });
  edits.mounts?.forEach((m, i) => {
    abs(m.hostPath, `mounts[${i}].hostPath`);
    abs(m.containerPath, `mounts[${i}].containerPath`);
  });
  edits.hooks?.forEach((h, i) => {
    abs(h.path, `hooks[${i}].path`);
    if (!HOOK_NAMES.has(h.hookName))
      problems.push(`${where}.hooks[${i}].hookName: ${JSON.stringify(h.hookName)} is not an OCI hook`);
    if (h.timeout !== undefined && !(Number.isInteger(h.timeout) && h.timeout > 0)) {
      problems.push(`${where}.hooks[${i}].timeout: must be a positive integer`);
    }
  });
  edits.additionalGids?.forEach((g, i) => {
    if (!(Number.isInteger(g) && g >= 0 && g <= 0xffffffff))
      problems.push(`${where}.additionalGids[${i}]: not a uint32`);
  });
  return problems;
}

/**
 * The oldest CDI version that can express a spec, by the reference implementation's rules (0.3.0 base;
 * 0.4.0 mount type; 0.5.0 device-node hostPath or a device name not starting with a letter; 0.6.0
 * annotations or a dot in the class; 0.7.0 additionalGids). For runtimes that predate the current version.
 */
export function minimumCdiVersion(spec: Omit<CdiSpec, 'cdiVersion'>): string {
  const edits = [spec.containerEdits, ...spec.devices.map((d) => d.containerEdits)].filter(
    (e): e is CdiContainerEdits => e !== undefined,
  );
  if (edits.some((e) => (e.additionalGids?.length ?? 0) > 0)) return '0.7.0';
  const cdiClass = spec.kind.slice(spec.kind.indexOf('/') + 1);
  const annotated = (a?: Readonly<Record<string, string>>) => a !== undefined && Object.keys(a).length > 0;
  if (
    annotated(spec.annotations) ||
    spec.devices.some((d) => annotated(d.annotations)) ||
    cdiClass.includes('.')
  )
    return '0.6.0';
  if (
    spec.devices.some((d) => !/^[A-Za-z]/.test(d.name)) ||
    edits.some((e) => e.deviceNodes?.some((n) => n.hostPath !== undefined))
  ) {
    return '0.5.0';
  }
  if (edits.some((e) => e.mounts?.some((m) => m.type !== undefined))) return '0.4.0';
  return '0.3.0';
}
