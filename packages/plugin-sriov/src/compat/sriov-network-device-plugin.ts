import { posix } from 'node:path';
import { isRefused, klogFlags, type CompatLayer, type CompatOption } from '@kdp/core/plugin';

/** Where upstream reads its configuration without `--config-file`. */
export const SRIOVDP_DEFAULT_CONFIG = '/etc/pcidp/config.json';

/** Where the image's entrypoint puts `--log-dir=DIR` (`/var/log/DIR`). */
const LOG_ROOT = '/var/log';

const klogV = klogFlags['v'];
if (klogV === undefined || isRefused(klogV)) throw new Error('klogFlags.v must be an accepted option');

const nonEmpty = (value: string, what: string): string => {
  if (value.trim() === '') throw new Error(`must name ${what}`);
  return value;
};

/** The entrypoint's `--log-dir=DIR`: logs under `/var/log/DIR` (it must stay there). */
const logDir: CompatOption = {
  kind: 'value',
  description: `the image entrypoint's log directory: also append the JSON logs to ${LOG_ROOT}/DIR (--log-dir)`,
  apply: (value, to) => {
    const dir = posix.join(LOG_ROOT, nonEmpty(value, 'a directory'));
    if (dir !== LOG_ROOT && !dir.startsWith(`${LOG_ROOT}/`)) throw new Error(`${value} leaves ${LOG_ROOT}`);
    to.flag('log-dir', dir);
  },
};

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
    'config-file': {
      kind: 'value',
      description: 'the JSON (or YAML) pool configuration (--config)',
      apply: (value, to) => to.flag('config', nonEmpty(value, 'a file')),
    },
    'resource-prefix': {
      kind: 'value',
      description: 'resource prefix of pools without resourcePrefix (--resource-prefix)',
      apply: (value, to) => to.flag('resource-prefix', nonEmpty(value, 'a prefix')),
    },
    'use-cdi': {
      kind: 'boolean',
      description: 'hand devices over as CDI names, specs in --cdi-dir (--device-list-strategy cdi)',
      apply: (value, to) => {
        if (value === 'true') to.flag('device-list-strategy', 'cdi');
      },
    },
    // The image's entrypoint.sh: `--log-level=N` becomes glog's `-v N`, `--log-dir=DIR` `-log_dir /var/log/DIR`.
    'log-level': {
      kind: 'value',
      description: "the image entrypoint's glog verbosity: 0–3 info, 4–5 debug, 6+ trace (--log-level)",
      apply: klogV.apply,
    },
    'log-dir': logDir,
    log_link: {
      kind: 'value',
      refuse:
        'kdp writes one log file, <dir>/sriov-device-plugin.log, without symbolic links: use -log_dir DIR',
    },
    logbuflevel: {
      kind: 'value',
      refuse: 'kdp does not buffer log lines: each is written at once',
    },
  },
  defaultConfigPaths: [SRIOVDP_DEFAULT_CONFIG],
};
