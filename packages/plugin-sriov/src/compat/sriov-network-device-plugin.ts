import { posix } from 'node:path';
import {
  compat,
  isRefused,
  klogFlags,
  useCdiOption,
  type CompatLayer,
  type CompatOption,
} from '@kdp/core/plugin';

/** Where upstream reads its configuration without `--config-file`. */
export const SRIOVDP_DEFAULT_CONFIG = '/etc/pcidp/config.json';

/** Where the image's entrypoint puts `--log-dir=DIR` (`/var/log/DIR`). */
const LOG_ROOT = '/var/log';

const klogV = klogFlags['v'];
if (klogV === undefined || isRefused(klogV)) throw new Error('klogFlags.v must be an accepted option');

/** The entrypoint's `--log-dir=DIR`: logs under `/var/log/DIR` (it must stay there). */
const logDir: CompatOption = compat.accept(
  'value',
  `the image entrypoint's log directory: also append the JSON logs to ${LOG_ROOT}/DIR (--log-dir)`,
  (value, to) => {
    if (value.trim() === '') throw new Error('must name a directory');
    const dir = posix.join(LOG_ROOT, value);
    if (dir !== LOG_ROOT && !dir.startsWith(`${LOG_ROOT}/`)) throw new Error(`${value} leaves ${LOG_ROOT}`);
    to.flag('log-dir', dir);
  },
);

/**
 * k8snetworkplumbingwg/sriov-network-device-plugin v3.11 (`sriovdp` and its image's entrypoint.sh, whose flags the
 * published DaemonSets and the SR-IOV Network Operator pass): `--config-file`, `--resource-prefix`, `--use-cdi`,
 * the entrypoint's numeric `--log-level` and `--log-dir`, and glog's flags. The configuration format is upstream's
 * already (see config.ts), so no conversion; without a configuration `/etc/pcidp/config.json` is read.
 */
export const sriovNetworkDevicePluginCompat: CompatLayer = {
  anchor: 'k8snetworkplumbingwg/sriov-network-device-plugin v3.11',
  flags: {
    ...klogFlags,
    'config-file': compat.toFlag('config', 'the JSON (or YAML) pool configuration (--config)', {
      names: 'a file',
    }),
    'resource-prefix': compat.toFlag(
      'resource-prefix',
      'resource prefix of pools without resourcePrefix (--resource-prefix)',
      { names: 'a prefix' },
    ),
    'use-cdi': useCdiOption,
    // The image's entrypoint.sh: `--log-level=N` becomes glog's `-v N`, `--log-dir=DIR` `-log_dir /var/log/DIR`.
    'log-level': compat.accept(
      'value',
      "the image entrypoint's glog verbosity: 0–3 info, 4–5 debug, 6+ trace (--log-level)",
      klogV.apply,
    ),
    'log-dir': logDir,
    log_link: compat.refuse(
      'value',
      'kdp writes one log file, <dir>/sriov-device-plugin.log, without symbolic links: use -log_dir DIR',
    ),
    logbuflevel: compat.refuse('value', 'kdp does not buffer log lines: each is written at once'),
  },
  defaultConfigPaths: [SRIOVDP_DEFAULT_CONFIG],
};
