import { compat, useCdiOption, type CompatLayer } from '@kdp/core/plugin';

/** Where upstream reads its configuration without `-config-file`. */
export const RDMA_SHARED_DEFAULT_CONFIG = '/k8s-rdma-shared-dev-plugin/config.json';

const version = compat.toFlag('version', 'print the version and exit (--version)', { whenTrue: true });

/**
 * Mellanox/k8s-rdma-shared-dev-plugin v1.5 (`k8s-rdma-shared-dp`): its four flags (`-config-file`, `-use-cdi`,
 * `-version` and `-v`, which is the version there, not a verbosity) and its default configuration path. Its file
 * format is ours already (see config.ts, `periodicUpdateInterval` included); it reads no environment variable.
 */
export const k8sRdmaSharedDevPluginCompat: CompatLayer = {
  anchor: 'Mellanox/k8s-rdma-shared-dev-plugin v1.5',
  flags: {
    'config-file': compat.toFlag('config', 'the JSON (or YAML) configuration (--config)', {
      names: 'a file',
    }),
    'use-cdi': useCdiOption,
    version,
    v: version,
  },
  defaultConfigPaths: [RDMA_SHARED_DEFAULT_CONFIG],
};
