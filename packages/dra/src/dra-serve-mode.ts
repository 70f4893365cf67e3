import { optimizingCompilers, type KubeApiAccess } from '@kdp/core';
import {
  flag,
  requireDirectories,
  UsageError,
  type AnyPluginDefinition,
  type ServeMode,
  type ServeModeBackend,
  type ServeModeContext,
} from '@kdp/core/plugin';
import { discoverDraPools } from './discover-dra-pools';
import type { DraServeModeEvent } from './dra-serve-mode-event';
import type { DraMetrics } from './dra-metrics';
import { createPluginDriver, type PluginDriver } from './plugin-driver';
import { loadKubeAccess } from './load-kube-access';
import { DRA_PLUGINS_DIR } from './socket-names';

export type { DraServeModeEvent } from './dra-serve-mode-event';

/** The domain of the driver names `createDraServeMode` gives plugins: `gpu.kdp.dev`, `usb.kdp.dev`, … */
export const DRA_DRIVER_DOMAIN = 'kdp.dev';

/** Options of {@link createDraServeMode}. */
export interface DraServeModeOptions {
  /** A plugin's driver name; default `<plugin name>.kdp.dev`. */
  readonly driverName?: ((definition: AnyPluginDefinition) => string) | undefined;
  /** The API server; default from `--kubeconfig`, else the pod's service account. */
  readonly access?: KubeApiAccess | undefined;
  /** How long device changes are collected before the slices are written; default 100 ms. */
  readonly sliceDebounceMs?: number | undefined;
  /** `health_check_timeout_seconds` of the health stream; default 30. */
  readonly healthCheckTimeoutSeconds?: number | undefined;
  /** Where procfs is read for the node's boot ID; default `--proc-root` (/proc for a plugin without it). */
  readonly procRoot?: string | undefined;
  readonly onEvent?: ((event: DraServeModeEvent) => void) | undefined;
}

/** The flags of `--mode dra`. */
const DRA_FLAGS = {
  kubeconfig: flag.path({
    description: 'kubeconfig of the API server; absent: the in-cluster service account',
    valueName: 'FILE',
  }),
  'dra-plugins-dir': flag.path({
    description: "the kubelet's DRA plugin directory (sockets, checkpoints)",
    valueName: 'DIR',
    default: DRA_PLUGINS_DIR,
  }),
  'dra-device-metadata': flag.boolean({
    description:
      'per prepared claim, a JSON file of its devices (attributes, share, network data) mounted read-only at ' +
      '/var/run/kubernetes.io/dra-device-attributes/resourceclaims/<claim>/<request>/<driver>-metadata.json',
  }),
};

/** A plugin's DRA driver name: the option's, else `<plugin>.kdp.dev`. */
const driverNameOf = (options: DraServeModeOptions, definition: AnyPluginDefinition): string =>
  options.driverName?.(definition) ?? `${definition.name}.${DRA_DRIVER_DOMAIN}`;

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * The `dra` serve mode (`serve --mode dra`): each plugin of the process becomes the DRA driver
 * `<plugin>.kdp.dev`, fed by the same scans, device memory and allocate hooks as the device-plugin mode. Each
 * resource is a pool `<node>/<resource>` of ResourceSlices (an Unhealthy device tainted `kdp.dev/unhealthy`; names from the device IDs,
 * attributes from the plugin's, `numa`, `resource`, `id` and the standard PCI ones); a claim's device is prepared
 * by the resource's own `allocate` for that device alone, whatever the device-list strategy: its CDI device holds
 * the device nodes and mounts, the device-list variables `void` and its own environment (`<NAME>_<DEVICE>`).
 * Flags: `--kubeconfig FILE`, `--dra-plugins-dir DIR` [/var/lib/kubelet/plugins], `--dra-device-metadata` (each
 * prepared claim's device metadata as a file in its containers, `createDeviceMetadataWriter`); `--node-name` is
 * required.
 * `discover --mode dra` prints the slices it would publish (`discoverDraPools`).
 */
export function createDraServeMode(options: DraServeModeOptions = {}): ServeMode {
  const mode: ServeMode<typeof DRA_FLAGS> = {
    description:
      'Dynamic Resource Allocation: ResourceSlices and a DRA kubelet plugin per plugin (<plugin>.kdp.dev)',
    flags: DRA_FLAGS,
    checkDirectories: (common, flags) =>
      requireDirectories([
        ['--plugins-registry-dir', common.pluginsRegistryDir],
        ['--dra-plugins-dir', flags['dra-plugins-dir']],
      ]),
    create: (context) => createBackend(context, options),
    discover: (input) => discoverDraPools(input, driverNameOf(options, input.definition)),
  };
  return mode;
}

/**
 * The DRA metrics in the process's registry. Required here rather than imported: a process that serves no
 * /metrics (no `--metrics-address`) never loads them, nor prom-client for them.
 */
function loadDraMetrics(context: ServeModeContext<typeof DRA_FLAGS>): DraMetrics {
  const { createDraMetrics } = require('./dra-metrics') as typeof import('./dra-metrics');
  return createDraMetrics({ registry: context.metrics.registry, clock: context.clock });
}

async function createBackend(
  context: ServeModeContext<typeof DRA_FLAGS>,
  options: DraServeModeOptions,
): Promise<ServeModeBackend> {
  const { nodeName, common } = context;
  if (nodeName === undefined || nodeName === '')
    throw new UsageError('--mode dra needs the node name (--node-name or $NODE_NAME)');
  const { kubeconfig } = context.flags;
  let access = options.access;
  if (access === undefined) {
    try {
      access = await loadKubeAccess({ kubeconfig, env: context.env });
    } catch (error) {
      throw new UsageError(messageOf(error));
    }
  }
  const metrics = common.metricsAddress !== undefined ? loadDraMetrics(context) : undefined;
  const onEvent = (event: DraServeModeEvent): void => {
    metrics?.record(event);
    options.onEvent?.(event);
  };
  const drivers = new Map<AnyPluginDefinition, PluginDriver>();
  for (const definition of context.plugins) {
    drivers.set(
      definition,
      createPluginDriver({
        name: driverNameOf(options, definition),
        nodeName,
        access,
        pluginsRegistryDir: common.pluginsRegistryDir,
        draPluginsDir: context.flags['dra-plugins-dir'],
        cdiDir: common.cdiDir,
        procRoot: options.procRoot ?? common.procRoot,
        podUid: context.env['POD_UID'] || undefined,
        sliceDebounceMs: options.sliceDebounceMs,
        healthCheckTimeoutSeconds: options.healthCheckTimeoutSeconds,
        deviceMetadata: context.flags['dra-device-metadata'],
        onEvent,
        metrics,
        clock: context.clock,
        logger: context.loggerOf(definition),
        signal: context.signal,
      }),
    );
  }
  return {
    resources(definition) {
      const driver = drivers.get(definition);
      if (driver === undefined) throw new Error(`plugin ${definition.name} is not served by this process`);
      return driver.host;
    },
    async start() {
      for (const driver of drivers.values()) await driver.start();
      // TurboFan, held off since the start (@kdp/core/start), goes on once the drivers serve, not at the first
      // NodePrepareResources as in the device-plugin mode: tiering up during the first calls put the prepare
      // bench's one-claim p99 at 14.5–18.6 ms in three runs of four, against 6.3–8.5 in three runs without the hold.
      optimizingCompilers.release();
    },
    async stop() {
      await Promise.all([...drivers.values()].map((driver) => driver.stop()));
    },
    readiness() {
      const waiting = [...drivers.values()]
        .filter((driver) => !driver.registered())
        .map((driver) => driver.name);
      return waiting.length === 0
        ? { ok: true }
        : { ok: false, message: `not registered: ${waiting.join(', ')}` };
    },
  };
}
