import type { Clock, Logger } from '@kdp/base';
import type { Host } from '@kdp/topology';
import type * as z from '../config/z';
import type { UnknownKeyPolicy } from '../config/load-config';
import type { ContainerAllocation, PluginDevice } from '../plugin-device';
import type { ResourceDeclaration, AllocateContext } from '../resource-declaration';
import type { CompatLayer } from './compat/compat-layer';
import type { ExcludedDevice } from './discover-result';
import type { FeatureLabels } from './feature-labels';
import type { FlagSpecs, FlagValues } from './flags';

/**
 * How Allocate hands a resource's devices to a container (`--device-list-strategy`, as NVIDIA's
 * `deviceListStrategy`): `envvar` sets the resource's device-list variable (`NVIDIA_VISIBLE_DEVICES`) for a
 * runtime hook, `device-specs` returns device nodes and mounts, `cdi` returns CDI device names whose spec the
 * runtime writes to `--cdi-dir`. Environment and annotations that name no device are returned in every mode.
 */
export type DeviceListStrategy = 'envvar' | 'device-specs' | 'cdi';

/** Every device-list strategy, in the order --help lists them. */
export const DEVICE_LIST_STRATEGIES: readonly DeviceListStrategy[] = ['envvar', 'device-specs', 'cdi'];

/** What every hook of a plugin definition gets: the machine, the configuration, the flags, and the runtime. */
export interface PluginContext<C = unknown, F extends FlagSpecs = FlagSpecs, St = unknown> {
  /** The plugin's short name (`gpu`). */
  readonly name: string;
  /** The command being run. */
  readonly command: 'serve' | 'discover';
  /** sysfs, /dev and procfs, each confined to its `--*-root`. */
  readonly host: Host;
  /** The running configuration (a reload replaces it before the next scan). */
  readonly config: C;
  /** The plugin's own flags, parsed. */
  readonly flags: FlagValues<F>;
  /** `--cdi-dir`: where the runtime writes CDI specs. */
  readonly cdiDir: string;
  /** `--device-list-strategy` when given; undefined: each resource's own default. */
  readonly deviceListStrategy: readonly DeviceListStrategy[] | undefined;
  /** The plugin's logger (JSON on stderr). */
  readonly logger: Logger;
  readonly clock: Clock;
  /** Aborts when the process shuts down. */
  readonly signal: AbortSignal;
  /** Asks for a scan now; scans never overlap, so a request during a scan runs one more right after it. */
  rescan(): void;
  /** What `setup` returned. */
  readonly state: St;
}

/** The context of `setup`: everything but the state it creates. */
export type SetupContext<C = unknown, F extends FlagSpecs = FlagSpecs> = Omit<
  PluginContext<C, F, never>,
  'state'
>;

/**
 * One resource as a plugin's `resources` function describes it after a scan: its full device list and its
 * hooks. Which kubelet options it registers with follows from the hooks it has (a `preferredAllocation`
 * hook means GetPreferredAllocation is offered, a `preStartContainer` hook means PreStartContainer is required).
 */
export interface ResourceSpec<P = unknown> extends Omit<ResourceDeclaration<P>, 'source' | 'options'> {
  /** Every device now, healthy or not. */
  readonly devices: readonly PluginDevice<P>[];
  /**
   * Side effects of a successful allocation (files for other agents, bookkeeping), run before the answer is
   * sent; never run by `discover`, which calls only the pure `allocate`.
   */
  readonly afterAllocate?: (
    context: AllocateContext<P>,
    allocation: ContainerAllocation,
  ) => void | Promise<void>;
  /** The strategies used when `--device-list-strategy` is not given (default `['device-specs']`). */
  readonly deviceListStrategy?: readonly DeviceListStrategy[];
  /**
   * The `envvar` strategy's variables, naming the container's devices for a runtime hook
   * (`{ NVIDIA_VISIBLE_DEVICES: 'GPU-…,GPU-…' }`). A resource without it hands over device specs under `envvar`.
   */
  readonly deviceListEnv?: (devices: readonly PluginDevice<P>[]) => Readonly<Record<string, string>>;
  /** CDI naming; default kind `k8s.device-plugin.<domain>/<name>` of the resource name, device name = device ID. */
  readonly cdi?: {
    /** `vendor/class` of the spec (one spec file per kind). */
    readonly kind?: string;
    /** The CDI device name of a device; devices with one name share one CDI device (time-slicing replicas). */
    readonly deviceName?: (device: PluginDevice<P>) => string;
    /**
     * An annotation key (`cdi.k8s.io/<plugin>_<kind>`) under which the `cdi` strategy also returns the names,
     * comma-separated, as the anchors do for runtimes that read CDI annotations only (containerd < 1.7, CRI-O < 1.28).
     */
    readonly annotation?: string;
  };
}

/** What a plugin's `resources` function returns: the resources, and what it saw but does not advertise. */
export interface ResourceSet {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each resource has a payload type of its own
  readonly resources: readonly ResourceSpec<any>[];
  /** Candidate devices not advertised, and why (printed by `discover`). */
  readonly excluded?: readonly ExcludedDevice[];
  /** Problems worth an operator's attention; logged once each while they last. */
  readonly warnings?: readonly string[];
  /**
   * Whether a device the scan no longer has is gone for good, so the runtime forgets it at once instead of keeping
   * it Unhealthy for `health.vanishedGraceMs` (a MIG device of a GPU that reports a new partition layout). Called
   * with each remembered device (its last entry, payload included) missing from its resource.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each resource has a payload type of its own
  readonly retired?: (device: PluginDevice<any>) => boolean;
}

/**
 * Directories whose changes (inotify) start a scan at once. Paths are within the plugin's roots: sysfs and
 * procfs paths relative to their root (`bus/pci/devices`), /dev paths as on the host (`/dev/dri`); `paths`
 * holds absolute paths outside the roots that a plugin was given by a flag. A directory that does not exist
 * yet is watched once it appears (looked for after each scan).
 */
export interface WatchSpec {
  readonly sysfs?: readonly string[];
  readonly devfs?: readonly string[];
  readonly procfs?: readonly string[];
  readonly paths?: readonly string[];
}

/** Paths a change probe reads under one root (relative to sysfs/procfs; host paths `/dev/…` for devfs). */
export interface ProbePaths {
  /** Directories whose entry names are compared. */
  readonly list?: readonly string[];
  /** Files whose contents are compared (read whole; keep them small: sysfs attributes). */
  readonly read?: readonly string[];
  /** Symbolic links whose targets are compared (`driver`). */
  readonly links?: readonly string[];
}

/**
 * The cheap check that tells whether a full scan is needed: what is listed, read and resolved here is compared
 * with its state at the last full scan, on every `--poll-interval` tick. Derived from the last scan, it names only
 * what can change (directory listings, `sriov_numvfs`, driver links, `carrier`/`operstate`, port `state`, error
 * registers); device-node presence is better left to `watch`, which inotify reports at once.
 */
export interface ChangeProbe {
  readonly sysfs?: ProbePaths;
  readonly devfs?: ProbePaths;
  readonly procfs?: ProbePaths;
}

/** How the runtime remembers devices across scans. */
export interface HealthPolicy<C, F extends FlagSpecs> {
  /**
   * How long a device that vanished from its resource stays advertised as Unhealthy (its last entry), so the
   * kubelet sees it fail instead of silently disappear; `Infinity` keeps it until it returns (or the resource set's
   * `retired` says it is gone for good). Default 0.
   */
  readonly vanishedGraceMs?: number | ((ctx: SetupContext<C, F>) => number);
  /** Which vanished devices are kept: every one (default), or only those handed to a container. */
  readonly keepVanished?: 'all' | 'allocated';
  /** A device first seen Unhealthy is not advertised (but listed as excluded) until it was healthy once. */
  readonly holdUntilHealthy?: boolean;
}

/** A device plugin, described for the runtime: `runPlugin(definition)` is all its `main.ts` does. */
export interface PluginDefinition<
  Schema extends z.ZodType = z.ZodType<Record<string, never>>,
  F extends FlagSpecs = Record<never, never>,
  S = unknown,
  St = undefined,
> {
  /** Short name, `[a-z][a-z0-9]*` (`gpu`): `kdp-device-plugins --plugins gpu` and its `--gpu-*` flags. */
  readonly name: string;
  /** The binary (`gpu-device-plugin`). */
  readonly binary: string;
  /** One line saying what it is; the first line of --help. */
  readonly title: string;
  /** The package version (read from package.json at build time). */
  readonly version: string;
  /** The `--config` file: its schema, the input used without a file, and the policy for unknown keys. */
  readonly config?: {
    readonly schema: Schema;
    /** Run through the schema when there is no file (default `{}`). */
    readonly defaults?: z.input<Schema>;
    /** `error` (default) or `warn` (formats borrowed from other projects). */
    readonly unknownKeys?: UnknownKeyPolicy;
  };
  /** The plugin's own flags (built with `flag.*`). */
  readonly flags?: F;
  /**
   * Drop-in layers for the established plugins this one replaces: their flags, environment variables, default
   * configuration paths and file formats, mapped onto ours (flags and variables in the plugin's own binary only).
   */
  readonly compat?: readonly CompatLayer[];
  /** Roots read besides sysfs and /dev: `procfs: true` offers `--proc-root` (a plugin without it has none). */
  readonly reads?: { readonly procfs?: boolean };
  /** Creates what lives as long as the process (event sources, caches); its result is `ctx.state`. */
  readonly setup?: (ctx: SetupContext<z.output<Schema>, F>) => St | Promise<St>;
  /** How the machine is read. */
  readonly scan: {
    /** Directories whose changes start a scan at once. */
    readonly watch?: (ctx: PluginContext<z.output<Schema>, F, St>) => WatchSpec;
    /**
     * The default of `--poll-interval` (default `1s`): how often the change probe runs (a full scan when it saw a
     * change), or, without a probe, the longest time between two full scans.
     */
    readonly interval?: string;
    /**
     * The change probe of the last scan's devices. With it, a poll tick runs a full scan only when the probe
     * differs from its state at the last full scan; watch events, reloads and `rescan()` always scan.
     */
    readonly probe?: (scan: S, ctx: PluginContext<z.output<Schema>, F, St>) => ChangeProbe;
    /** One scan; a throw keeps the last good device set and is logged once until a scan succeeds. */
    readonly run: (ctx: PluginContext<z.output<Schema>, F, St>) => S | Promise<S>;
  };
  /** Turns a scan (and the configuration) into the resources to advertise; pure, called after every scan. */
  readonly resources: (scan: S, ctx: PluginContext<z.output<Schema>, F, St>) => ResourceSet;
  /**
   * Node feature labels for what the scan found (`nvidia.com/gpu.product`, `<resource>.count`), called with the set
   * `resources` returned; `serve --nfd-features-dir DIR` writes them to Node Feature Discovery's feature file
   * `DIR/kdp-<name>` after every scan (only when they changed) and removes it at shutdown. Invalid labels are dropped
   * with a warning.
   */
  readonly features?: (
    set: ResourceSet,
    ctx: PluginContext<z.output<Schema>, F, St>,
  ) => FeatureLabels | Promise<FeatureLabels>;
  /** Device memory across scans (vanished devices, devices never healthy). */
  readonly health?: HealthPolicy<z.output<Schema>, F>;
  /** Optional lifecycle hooks (serve only). */
  readonly hooks?: {
    /**
     * Before every resource set reaches the kubelet, with the devices as they will be advertised (remembered ones
     * included): write what a container needs for them (CDI specs), prune what belongs to devices that are gone.
     * A throw is logged (once while it repeats) and the set is not advertised; the next scan tries again.
     */
    readonly advertise?: (
      set: ResourceSet,
      ctx: PluginContext<z.output<Schema>, F, St>,
    ) => void | Promise<void>;
    /** At shutdown, after every resource stopped (remove files the plugin wrote, stop event sources). */
    readonly stop?: (ctx: PluginContext<z.output<Schema>, F, St>) => void | Promise<void>;
  };
}

/** A definition of any types, for lists of plugins (each one is checked on its own). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the type parameters are used both ways
export type AnyPluginDefinition = PluginDefinition<any, any, any, any>;

const NAME = /^[a-z][a-z0-9]{0,31}$/;
const BINARY = /^[a-z][a-z0-9-]{0,63}$/;
const FLAG_NAME = /^[a-z][a-z0-9-]{0,63}$/;

/**
 * Checks a plugin definition and returns it with its types inferred (config, flags, scan and state flow into
 * every hook). Throws at once for a bad name, binary or flag name, so a broken definition never starts.
 */
export function definePlugin<
  Schema extends z.ZodType = z.ZodType<Record<string, never>>,
  F extends FlagSpecs = Record<never, never>,
  S = unknown,
  St = undefined,
>(definition: PluginDefinition<Schema, F, S, St>): PluginDefinition<Schema, F, S, St> {
  if (!NAME.test(definition.name)) {
    throw new Error(`plugin name ${JSON.stringify(definition.name)} must match ${NAME.source}`);
  }
  if (!BINARY.test(definition.binary)) {
    throw new Error(`binary ${JSON.stringify(definition.binary)} must match ${BINARY.source}`);
  }
  if (definition.version.trim() === '') throw new Error(`${definition.binary}: version must not be empty`);
  for (const name of Object.keys(definition.flags ?? {})) {
    if (!FLAG_NAME.test(name))
      throw new Error(`${definition.binary}: flag --${name} must match ${FLAG_NAME.source}`);
  }
  return definition;
}
