import type { Logger } from '@kdp/base';
import type { LoadConfigOptions } from '../config/load-config';
import { selectNodeConfig } from '../config/select-node-config';
import { inClusterAccess, type KubeApiAccess } from '../kube/kube-api-access';
import type * as NodeLabelWatchModule from '../kube/node-label-watch';
import type { NodeLabelWatch } from '../kube/node-label-watch';
import type { CommonFlags } from './common-flags';
import { UsageError } from './exit-code';

/** Options of {@link startNodeConfigSelection}. */
export interface NodeConfigSelectionOptions {
  readonly common: CommonFlags;
  /** `--node-name`, else `$NODE_NAME`. */
  readonly nodeName: string | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The API server (default: the pod's in-cluster service account). */
  readonly kubeApi: KubeApiAccess | undefined;
  /** How often the node's labels are read again. */
  readonly intervalMs: number | undefined;
  /** Keep reading the labels (`serve`), rather than once (`discover`). */
  readonly watch: boolean;
  readonly logger: Logger;
  /** The node's labels changed: the configurations are selected again. */
  readonly onChange: () => void;
}

/** How this node's file of a configuration directory is chosen, and the label watch behind it. */
export interface NodeConfigSelection {
  readonly selectFile: NonNullable<LoadConfigOptions['selectFile']>;
  stop(): void;
}

/**
 * Chooses this node's file of a configuration directory (`--node-name`, `--node-config-label`,
 * `--default-config`); with `--node-config-label` reads the node's labels first (and, for `serve`, again every
 * interval). Throws `UsageError` when the label needs the node name or an API server it has not got.
 */
export async function startNodeConfigSelection(
  options: NodeConfigSelectionOptions,
): Promise<NodeConfigSelection> {
  const { common, nodeName } = options;
  const labels = common.nodeConfigLabel === undefined ? undefined : await watchNodeLabels(options);
  if (options.watch) labels?.start();
  return {
    selectFile: (dir) =>
      selectNodeConfig(dir, {
        ...(nodeName !== undefined && nodeName !== '' ? { nodeName } : {}),
        ...(common.nodeConfigLabel !== undefined ? { label: common.nodeConfigLabel } : {}),
        ...(labels !== undefined ? { labels: () => labels.current() } : {}),
        ...(common.defaultConfig !== undefined ? { defaultKey: common.defaultConfig } : {}),
      }),
    stop: () => labels?.stop(),
  };
}

async function watchNodeLabels(options: NodeConfigSelectionOptions): Promise<NodeLabelWatch> {
  const { common, nodeName, logger } = options;
  const access = options.kubeApi ?? (await inClusterAccess(options.env));
  if (nodeName === undefined || nodeName === '' || access === undefined) {
    const missing =
      access === undefined
        ? 'the API server (an in-cluster service account)'
        : 'the node name (--node-name or $NODE_NAME)';
    throw new UsageError(`--node-config-label ${common.nodeConfigLabel} needs ${missing}`);
  }
  // The API client (http, https, tls) is loaded on this path only.
  const { createNodeLabelWatch } = require('../kube/node-label-watch') as typeof NodeLabelWatchModule;
  const watch = createNodeLabelWatch({
    access,
    nodeName,
    ...(options.intervalMs !== undefined ? { intervalMs: options.intervalMs } : {}),
    onChange: (labels) => {
      logger.info(
        { label: common.nodeConfigLabel, value: labels[common.nodeConfigLabel ?? ''] ?? null },
        'node labels read',
      );
      options.onChange();
    },
    onError: (error) =>
      logger.warn(
        { problem: error.message },
        'cannot read the node labels; selecting the configuration without them',
      ),
  });
  await watch.refresh();
  return watch;
}
