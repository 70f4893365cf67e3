import type * as Yaml from 'yaml';
import {
  compat,
  isGoTrue,
  type CompatConfigFormat,
  type CompatLayer,
  type CompatTarget,
} from '@kdp/core/plugin';

/**
 * Where generic-device-plugin looks for its file without `--config` (viper's `config.<ext>`, parsed as YAML, in
 * /etc/generic-device-plugin/ and then the working directory, `/` in its image; `/config` itself is left out here).
 */
export const GDP_DEFAULT_CONFIG_PATHS = [
  '/etc/generic-device-plugin/config.json',
  '/etc/generic-device-plugin/config.yaml',
  '/etc/generic-device-plugin/config.yml',
  '/etc/generic-device-plugin/config',
  '/config.json',
  '/config.yaml',
  '/config.yml',
];

/** generic-device-plugin's `--listen` default: health and metrics on every address, port 8080. */
export const GDP_DEFAULT_LISTEN = ':8080';

/** generic-device-plugin's rule for a device name (before its domain is prepended). */
const DEVICE_NAME = /^[a-z0-9][-a-z0-9]*[a-z0-9]$/;

/** Our log level for each of generic-device-plugin's `--log-level` values (`none` has none). */
const LOG_LEVELS: Readonly<Record<string, string>> = {
  all: 'trace',
  debug: 'debug',
  info: 'info',
  warn: 'warn',
  error: 'error',
};

/** One `--device` value (JSON or YAML) as a device of our `devices` list, its name trimmed as generic-device-plugin does. */
export function parseGdpDevice(text: string): Record<string, unknown> {
  let device: unknown;
  try {
    // Loaded on this path only (a `--device` flag), so that the plugin without one never evaluates the parser.
    device = (require('yaml') as typeof Yaml).parse(text);
  } catch (error) {
    throw new Error(`not JSON or YAML: ${(error as Error).message.split('\n')[0] ?? ''}`);
  }
  if (typeof device !== 'object' || device === null || Array.isArray(device))
    throw new Error('must be an object {"name": …, "groups": […]}');
  const { name } = device as { name?: unknown };
  const trimmed = typeof name === 'string' ? name.trim() : '';
  if (!DEVICE_NAME.test(trimmed))
    throw new Error(
      `device name ${JSON.stringify(name)} must match the regular expression ${DEVICE_NAME.source}`,
    );
  return { ...device, name: trimmed };
}

/** One `--device` flag: its device joins the command line's list, which replaces the file's `devices`, as gdp's flags win. */
const addDevice = (value: string, to: CompatTarget): void =>
  to.appendConfig(['devices'], parseGdpDevice(value));

const domain = compat.accept(
  'value',
  'the domain of the resource names (domain key; default squat.ai)',
  (value, to) => to.setConfig(['domain'], value),
);
const listen = compat.toFlag(
  'metrics-address',
  'health and metrics address (--metrics-address; /healthz and /metrics here)',
);
const pluginDirectory = compat.toFlag(
  'device-plugin-dir',
  "the kubelet's socket directory (--device-plugin-dir)",
);
const logLevel = compat.accept(
  'value',
  'all, debug, info, warn or error (--log-level; all is trace); none is refused',
  (value, to) => {
    if (value === 'none')
      throw new Error('none is not supported: kdp always logs errors (--log-level error is the quietest)');
    const level = LOG_LEVELS[value];
    if (level === undefined)
      throw new Error(`log level ${value} unknown; possible values are: all, debug, info, warn, error, none`);
    to.flag('log-level', level);
  },
);

/** generic-device-plugin's configuration keys (viper: the flags' names, `devices` an alias of `device`). */
const GDP_KEYS = new Set([
  'device',
  'devices',
  'domain',
  'listen',
  'log-level',
  'plugin-directory',
  'version',
]);
/** Keys only generic-device-plugin's files have (ours share `devices` and `domain`). */
const GDP_ONLY_KEYS = ['device', 'listen', 'log-level', 'plugin-directory', 'version'];

/** generic-device-plugin's configuration file: its devices and domain are ours; the keys of flags go on the command line. */
const gdpConfigFormat: CompatConfigFormat = {
  detect: (doc) =>
    typeof doc === 'object' &&
    doc !== null &&
    !Array.isArray(doc) &&
    Object.keys(doc).every((key) => GDP_KEYS.has(key)) &&
    GDP_ONLY_KEYS.some((key) => key in doc),
  convert: (doc) => {
    const input = doc as Record<string, unknown>;
    const flags: Readonly<Record<string, string>> = {
      listen: '--metrics-address',
      'log-level': '--log-level',
      'plugin-directory': '--device-plugin-dir',
      version: '--version',
    };
    const errors = Object.entries(flags)
      .filter(([key]) => key in input)
      .map(([key, ours]) => ({
        path: key,
        message: `not read from the file here: give ${ours} on the command line`,
      }));
    const { device, devices, domain: fileDomain } = input;
    return {
      config: {
        ...(devices !== undefined || device !== undefined ? { devices: devices ?? device } : {}),
        ...(fileDomain !== undefined ? { domain: fileDomain } : {}),
      },
      errors,
    };
  },
};

/**
 * squat/generic-device-plugin 0.1 (`generic-device-plugin`): its flags (`--device` repeatable, JSON or YAML, into
 * our `devices` list; `--domain` our `domain`; `--listen`, `--plugin-directory`, `--log-level`, `--config` and
 * `--version` ours), the environment variables viper binds to them (DOMAIN, LISTEN, LOG_LEVEL,
 * PLUGIN_DIRECTORY, VERSION; DEVICE, which generic-device-plugin itself cannot decode, is refused), its default
 * configuration paths and file keys. Started as generic-device-plugin (invoked by its binary name, or one of
 * its flags given), `serve` serves metrics on its default `--listen`, :8080 (its manifest's PodMonitor scrapes
 * it), and its devices keep its IDs and Allocate answers (the `anchor` key); our own command line serves none
 * without `--metrics-address` and keeps our IDs.
 */
export const genericDevicePluginCompat: CompatLayer = {
  anchor: 'squat/generic-device-plugin 0.1',
  flags: {
    device: compat.accept(
      'value',
      'one device {"name", "groups": [{"paths"|"usb", "count"}]}, JSON or YAML (repeatable; devices key)',
      addDevice,
    ),
    domain,
    listen,
    'plugin-directory': pluginDirectory,
    'log-level': logLevel,
  },
  env: {
    DOMAIN: domain,
    LISTEN: listen,
    PLUGIN_DIRECTORY: pluginDirectory,
    LOG_LEVEL: logLevel,
    // viper's cast.ToBool: 1, t, true… are true, anything else false.
    VERSION: compat.accept(
      'value',
      'print the version and exit when true (viper: 1, t, true…)',
      (value, to) => {
        if (isGoTrue(value)) to.flag('version');
      },
    ),
    DEVICE: compat.refuse(
      'value',
      'generic-device-plugin cannot decode DEVICE from the environment either: give --device flags or a devices list in --config',
    ),
  },
  defaultConfigPaths: GDP_DEFAULT_CONFIG_PATHS,
  configFormat: gdpConfigFormat,
  binaries: ['generic-device-plugin'],
  asAnchor: (to) => {
    to.flag('metrics-address', GDP_DEFAULT_LISTEN);
    to.setConfig(['anchor'], 'generic-device-plugin');
  },
};
