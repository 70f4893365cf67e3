import type { NodeKind, UsbConfig, UsbMatchRule } from '../config';

/** One path of a path group (generic-device-plugin's semantics). */
export interface PathSpec {
  /** A glob under /dev. */
  readonly path: string;
  readonly mountPath?: string;
  readonly permissions: string;
  readonly type: 'Device' | 'Mount';
  readonly readOnly: boolean;
  /** How many times one match may be reused when other paths of the group match more (default 1). */
  readonly limit: number;
  /** A path that matches nothing is left out of the group's devices rather than leaving the group without any. */
  readonly optional: boolean;
}

/** A group of USB devices: every matching physical device becomes `count` advertised devices. */
export interface UsbGroupSpec {
  readonly kind: 'usb';
  readonly rules: readonly UsbMatchRule[];
  readonly count: number;
  readonly permissions: string;
  readonly nodes: readonly NodeKind[];
}

/** A group of device-path globs: the i-th matches of every path form one device (generic-device-plugin). */
export interface PathGroupSpec {
  readonly kind: 'paths';
  readonly paths: readonly PathSpec[];
  readonly count: number;
  /** `gdp`: generic-device-plugin's IDs, sha1 of the slot and the matched paths (started as it). */
  readonly ids: 'kdp' | 'gdp';
}

/** One advertised resource and the groups its devices come from. */
export interface ConfiguredResource {
  readonly name: string;
  readonly groups: ReadonlyArray<UsbGroupSpec | PathGroupSpec>;
}

const ALL_NODES: readonly NodeKind[] = ['usb', 'tty', 'hidraw', 'video', 'input'];

/**
 * The resources of a configuration, in file order: each native resource is one group; each generic-device-plugin
 * device `<domain>/<name>` keeps its groups (`usb` specs become exact vendor/product/serial rules).
 */
export function configuredResources(config: UsbConfig): ConfiguredResource[] {
  const native = config.resources.map((r): ConfiguredResource => ({
    name: r.name,
    groups: [
      r.match !== undefined
        ? {
            kind: 'usb',
            rules: r.match,
            count: r.count,
            permissions: r.permissions,
            nodes: r.nodes ?? ALL_NODES,
          }
        : {
            kind: 'paths',
            count: r.count,
            ids: 'kdp',
            paths: (r.paths ?? []).map((path) => ({
              path,
              permissions: r.permissions,
              type: 'Device',
              readOnly: false,
              limit: 1,
              optional: false,
            })),
          },
    ],
  }));
  const asGdp = config.anchor === 'generic-device-plugin';
  const gdp = config.devices.map((device): ConfiguredResource => ({
    name: `${config.domain}/${device.name}`,
    groups: device.groups.map((group) =>
      group.usb !== undefined
        ? {
            kind: 'usb',
            count: group.count ?? 1,
            permissions: 'rw',
            // generic-device-plugin hands over the bus node alone.
            nodes: asGdp ? ['usb'] : ALL_NODES,
            rules: group.usb.map((u) => ({
              vendor: u.vendor,
              product: u.product,
              // generic-device-plugin compares serials exactly: glob characters are escaped.
              ...(u.serial ? { serial: u.serial.replace(/[*?[\\]/g, '\\$&') } : {}),
            })),
          }
        : {
            kind: 'paths',
            count: group.count ?? 1,
            ids: asGdp ? 'gdp' : 'kdp',
            paths: (group.paths ?? []).map((p) => ({
              path: p.path,
              ...(p.mountPath ? { mountPath: p.mountPath } : {}),
              permissions: p.permissions ?? 'mrw',
              type: p.type ?? 'Device',
              readOnly: p.readOnly ?? false,
              limit: p.limit ?? 1,
              optional: p.optional ?? false,
            })),
          },
    ),
  }));
  return [...native, ...gdp];
}

/** Every `/dev` glob of the configuration's path groups (what a scan expands). */
export function pathPatterns(resources: readonly ConfiguredResource[]): string[] {
  const groups = resources.flatMap((r) => r.groups);
  return [...new Set(groups.flatMap((g) => (g.kind === 'paths' ? g.paths.map((p) => p.path) : [])))];
}
