import type { CompatLayer, CompatOption } from '@kdp/core/plugin';

/** Where upstream reads its configuration without `-config-file`. */
export const RDMA_SHARED_DEFAULT_CONFIG = '/k8s-rdma-shared-dev-plugin/config.json';

const version: CompatOption = {
  kind: 'boolean',
  description: 'print the version and exit (--version)',
  apply: (value, to) => {
    if (value === 'true') to.flag('version');
  },
};

/**
 * Mellanox/k8s-rdma-shared-dev-plugin v1.5 (`k8s-rdma-shared-dp`): its four flags (`-config-file`, `-use-cdi`,
 * `-version` and `-v`, which is the version there, not a verbosity) and its default configuration path. Its file
 * format is ours already (see config.ts, `periodicUpdateInterval` included); it reads no environment variable.
 */
export const k8sRdmaSharedDevPluginCompat: CompatLayer = {
  anchor: 'Mellanox/k8s-rdma-shared-dev-plugin v1.5',
  flags: {
    'config-file': {
      kind: 'value',
      description: 'the JSON (or YAML) configuration (--config)',
      apply: (value, to) => {
        if (value.trim() === '') throw new Error('must name a file');
        to.flag('config', value);
      },
    },
    'use-cdi': {
      kind: 'boolean',
      description: 'hand devices over as CDI names, specs in --cdi-dir (--device-list-strategy cdi)',
      apply: (value, to) => {
        if (value === 'true') to.flag('device-list-strategy', 'cdi');
      },
    },
    version,
    v: version,
  },
  defaultConfigPaths: [RDMA_SHARED_DEFAULT_CONFIG],
};
