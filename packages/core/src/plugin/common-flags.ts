import type { LogLevel } from '@kdp/base';
import type { DeviceListStrategy } from './define-plugin';

/** The flags every kdp plugin takes (see the plugin contract), parsed and checked. */
export interface CommonFlags {
  /** `--sysfs-root DIR` (default `/sys`): where sysfs is read. */
  readonly sysfsRoot: string;
  /** `--dev-root DIR` (default `/dev`): where device nodes are looked up. */
  readonly devRoot: string;
  /** `--proc-root DIR` (default `/proc`): where procfs is read; offered only where a plugin reads procfs. */
  readonly procRoot: string;
  /** `--device-plugin-dir DIR` (default `/var/lib/kubelet/device-plugins`): the kubelet's socket directory. */
  readonly devicePluginDir: string;
  /** `--cdi-dir DIR` (default `/var/run/cdi`): where CDI specs are written for resources handed over by CDI. */
  readonly cdiDir: string;
  /** `--device-list-strategy LIST`; undefined: each resource's own default. */
  readonly deviceListStrategy: readonly DeviceListStrategy[] | undefined;
  /** `--registration MODE` (default `kubelet`). */
  readonly registration: 'kubelet' | 'plugin-watcher';
  /** `--plugins-registry-dir DIR` (default `/var/lib/kubelet/plugins_registry`): the plugin-watcher socket's directory. */
  readonly pluginsRegistryDir: string;
  /** `--metrics-address HOST:PORT`: /metrics, /healthz, /readyz; undefined = off. */
  readonly metricsAddress: string | undefined;
  /** `--log-level LEVEL` (default `info`). */
  readonly logLevel: LogLevel;
  /** `--log-dir DIR`: the JSON logs are also appended to `DIR/<binary>.log`; undefined = stderr only. */
  readonly logDir: string | undefined;
  /** `--node-name NAME`; undefined: `$NODE_NAME`. */
  readonly nodeName: string | undefined;
  /** `--node-config-label LABEL`: the node label naming this node's key of a configuration directory. */
  readonly nodeConfigLabel: string | undefined;
  /** `--default-config KEY`: the key of a configuration directory used when nothing names one. */
  readonly defaultConfig: string | undefined;
  /** `--poll-interval DURATION` in ms; undefined: each plugin's own default. */
  readonly pollIntervalMs: number | undefined;
  /** `--nfd-features-dir DIR`: where each plugin writes its NFD feature file `kdp-<plugin>`; undefined = none. */
  readonly nfdFeaturesDir: string | undefined;
}
