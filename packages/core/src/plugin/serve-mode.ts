import type { DevicePlugin } from '../device-plugin';
import type { CommonFlags } from './common-flags';
import type { AnyPluginDefinition } from './define-plugin';
import type { FlagSpecs, FlagValues } from './flags';
import type { ModeDiscoverInput, ModeDiscoverResult } from './mode-discover';
import type { ProcessServices } from './process-services';

/** The mode `serve` runs in when `--mode` is not given: the kubelet's device-plugin API. */
export const DEVICE_PLUGIN_MODE = 'device-plugin';

/**
 * Where one plugin's resources are served: the device plugin, or a {@link ServeMode}'s backend. The runtime adds a
 * resource when it appears (its declaration's `source` then receives every full device list, remembered devices
 * included, and its `allocate` answers exactly what the device plugin's Allocate answers) and removes it when gone.
 */
export type ResourceHost = Pick<DevicePlugin, 'addResource' | 'removeResource'> & {
  /**
   * Told when a change probe found nothing changed since the last scan: the device lists last pushed (and their
   * health) still hold as of now, as a scan's push says they do (DRA's health `last_updated_time`). Optional.
   */
  readonly unchanged?: (() => void) | undefined;
};

/** What a {@link ServeMode} is started with: the parsed command line and the process's services. */
export interface ServeModeContext<F extends FlagSpecs = FlagSpecs> extends ProcessServices {
  readonly binary: string;
  readonly version: string;
  /** The common flags (`--node-name`, `--plugins-registry-dir`, `--cdi-dir`, `--proc-root`, …). */
  readonly common: CommonFlags;
  /** The mode's own flags, parsed (by their names without `--`), each its declared default when absent. */
  readonly flags: FlagValues<F>;
  /** `--node-name`, else `$NODE_NAME`; undefined when neither is set. */
  readonly nodeName: string | undefined;
  /** The environment the run was given. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The plugins this process serves. */
  readonly plugins: readonly AnyPluginDefinition[];
}

/** A running {@link ServeMode}: where every plugin of the process serves its resources. */
export interface ServeModeBackend {
  /** Where one plugin's resources go; called once per plugin before its first scan. */
  resources(definition: AnyPluginDefinition): ResourceHost;
  /** Called before the plugins' first scans (so resources are served as they appear); default nothing. */
  open?(): Promise<void>;
  /** Called once every plugin's first scan has been applied (so the first answers know the devices). */
  start?(): Promise<void>;
  /** Resolves when the backend ends by itself; the process then stops. */
  readonly stopped?: Promise<unknown>;
  /** Stops serving; called once at shutdown, after scanning stopped and before the plugins' stop hooks. */
  stop(): Promise<void>;
  /** `/readyz` once started (default ready). */
  readiness?(): { readonly ok: boolean; readonly message?: string };
}

/**
 * A way to serve a plugin's devices (`serve --mode <name>`): the kubelet's device-plugin API (the default,
 * `device-plugin`) or e.g. Dynamic Resource Allocation. The same scans, configuration reloads, device
 * memory and allocate hooks feed every mode; only the last step (what the kubelet is told) differs. Given to
 * `runPlugin(definition, io, { modes })`.
 */
export interface ServeMode<F extends FlagSpecs = FlagSpecs> {
  /** One line for `--help` (`Dynamic Resource Allocation: ResourceSlices and a DRA kubelet plugin`). */
  readonly description: string;
  /** The mode's own flags; serve only, and refused (exit 2) in any other mode. */
  readonly flags?: F;
  /** Common flags that only this mode acts on (`device-plugin-dir`): refused (exit 2) in any other mode. */
  readonly commonFlags?: readonly string[];
  /**
   * Checks the directories the mode needs before anything starts (see `requireDirectories`); throws a
   * `UsageError` naming the flag and the path (exit 2).
   */
  checkDirectories?(common: CommonFlags, flags: FlagValues<F>): Promise<void>;
  /**
   * Creates the backend once the configuration is loaded; throw a `UsageError` for a missing or bad setting
   * (exit 2), anything else for a failure (exit 1).
   */
  create(context: ServeModeContext<F>): ServeModeBackend | Promise<ServeModeBackend>;
  /**
   * `discover --mode <name>`: what the mode would publish for one plugin's scanned resources (DRA: the
   * ResourceSlices' devices, written by the same code as when serving). Without it `discover` refuses the mode.
   */
  discover?(input: ModeDiscoverInput): ModeDiscoverResult;
}

/** The extra options of `runPlugin` / `runPlugins`. */
export interface RunOptions {
  /**
   * Serve modes by name, added to the default `{ 'device-plugin': createDevicePluginServeMode() }`
   * (`{ dra: createDraServeMode() }`): more than one offers `--mode`.
   */
  readonly modes?: Readonly<Record<string, ServeMode>>;
}
