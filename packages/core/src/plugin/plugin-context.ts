import { posix } from 'node:path';
import type { Clock, Logger } from '@kdp/base';
import type { Host } from '@kdp/topology';
import type { AnyPluginDefinition, DeviceListStrategy, PluginContext, WatchSpec } from './define-plugin';

/** What a plugin's context is built from. */
export interface PluginContextInit {
  readonly definition: AnyPluginDefinition;
  readonly command: 'serve' | 'discover';
  readonly host: Host;
  readonly flags: Readonly<Record<string, unknown>>;
  readonly cdiDir: string;
  /** `--device-list-strategy`; undefined: each resource's default. */
  readonly deviceListStrategy?: readonly DeviceListStrategy[] | undefined;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly signal: AbortSignal;
  /** The running configuration (a reload changes what it returns). */
  readonly config: () => unknown;
  readonly rescan: () => void;
}

/** A plugin's context; `state` is filled in once `setup` returned it. */
export type MutablePluginContext = PluginContext<unknown, never, unknown> & { state: unknown };

/** Builds the context every hook of a plugin receives. */
export function createPluginContext(init: PluginContextInit): MutablePluginContext {
  return {
    name: init.definition.name,
    command: init.command,
    host: init.host,
    get config() {
      return init.config();
    },
    flags: init.flags as never,
    cdiDir: init.cdiDir,
    deviceListStrategy: init.deviceListStrategy,
    logger: init.logger,
    clock: init.clock,
    signal: init.signal,
    rescan: init.rescan,
    state: undefined,
  };
}

/** The absolute directories a watch declaration names, each kept inside its root. */
export function watchedDirectories(host: Host, spec: WatchSpec | undefined): string[] {
  if (spec === undefined) return [];
  const inside = (root: string, path: string): string => posix.join(root, posix.normalize(`/${path}`));
  const paths = [
    ...(spec.sysfs ?? []).map((path) => inside(host.sysfs.root, path)),
    ...(spec.procfs ?? []).map((path) => inside(host.procfs.root, path)),
    ...(spec.devfs ?? []).map((path) => host.devfs.localPath(path)).filter((path) => path !== undefined),
    ...(spec.paths ?? []),
  ];
  return [...new Set(paths)];
}
