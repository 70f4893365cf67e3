import { validateResourceName } from '@kdp/api';
import type { ConfigIssue } from '@kdp/core';
import { isRefused, type CompatConfigFormat, type CompatOption, type CompatTarget } from '@kdp/core/plugin';
import { nvidiaOptions as o } from './nvidia-options';

/**
 * Why `sharing.mps` is refused: NVIDIA's plugin serves MPS only beside its mps-control-daemon DaemonSet, and
 * before serving checks that daemon by running the driver's `nvidia-cuda-mps-control` against the daemon's pipe.
 */
export const MPS_REFUSAL =
  "not supported: kdp runs no MPS control daemon; NVIDIA's plugin serves MPS only beside its mps-control-daemon DaemonSet (<MPS_ROOT>/<resource>/pipe and shm, mounted into each container with CUDA_MPS_PIPE_DIRECTORY) and checks that daemon before serving by running the driver's nvidia-cuda-mps-control on its pipe, which kdp does not (it runs no NVIDIA binary) and a fixture cannot answer faithfully; share GPUs with sharing.timeSlicing, or keep NVIDIA's plugin on MPS nodes";

type Doc = Record<string, unknown>;

const isObject = (value: unknown): value is Doc =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** NVIDIA's config keys that are settings (also flags and variables), by section. */
const FLAG_KEYS: Readonly<Record<string, CompatOption>> = {
  migStrategy: o.migStrategy,
  failOnInitError: o.failOnInitError,
  mpsRoot: o.mpsRoot,
  nvidiaDriverRoot: o.driverRoot,
  nvidiaDevRoot: o.devRoot,
  gdrcopyEnabled: o.gdrcopyEnabled,
  gdsEnabled: o.gdsEnabled,
  mofedEnabled: o.mofedEnabled,
  deviceDiscoveryStrategy: o.discoveryStrategy,
};
const PLUGIN_KEYS: Readonly<Record<string, CompatOption>> = {
  passDeviceSpecs: o.passDeviceSpecs,
  deviceListStrategy: o.deviceListStrategy,
  deviceIDStrategy: o.deviceIdStrategy,
  cdiAnnotationPrefix: o.cdiAnnotationPrefix,
  nvidiaCTKPath: o.cdiHookPath,
  containerDriverRoot: o.containerDriverRoot,
  sharedDevicesAllocationPolicy: o.allocationPolicy,
};
const IMEX_KEYS: Readonly<Record<string, CompatOption>> = {
  channelIDs: o.imexChannelIds,
  required: o.imexRequired,
};
/** Keys NVIDIA's config shares with gpu-feature-discovery, which the device plugin itself does not read. */
const GFD_ONLY = new Set(['useNodeFeatureAPI', 'gfd']);

/** What NVIDIA's plugin v0.20 does with `rename` and `devices` (config.go DisableResourceNamingInConfig). */
const NOT_YET = "ignored, as NVIDIA's plugin v0.20 ignores it ('not yet supported')";

/** A device of a `devices` list as NVIDIA accepts it: an index, a MIG index `<gpu>:<mig>`, a GPU or MIG UUID. */
const DEVICE_REF =
  /^(\d+|\d+:\d+|GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|MIG-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|MIG-GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\/\d+\/\d+)$/i;

/** Sets `path` in a plain object, creating objects on the way. */
function setIn(root: Doc, path: readonly (string | number)[], value: unknown): void {
  let node = root;
  path.forEach((key, index) => {
    if (index === path.length - 1) {
      node[key] = value;
      return;
    }
    const child = node[key];
    node = isObject(child) ? child : (node[key] = {});
  });
}

/** A conversion in progress: our configuration, errors and warnings by NVIDIA's field path. */
interface Conversion {
  readonly config: Doc;
  readonly errors: ConfigIssue[];
  readonly warnings: ConfigIssue[];
}

/** Applies one of NVIDIA's settings from the file through the option the flag and variable use. */
function applySetting(out: Conversion, path: string, option: CompatOption, raw: unknown): void {
  if (raw === undefined || raw === null) return;
  if (isRefused(option)) {
    out.errors.push({ path, message: `not supported: ${option.refuse}` });
    return;
  }
  let text: string;
  if (option.kind === 'boolean') {
    if (typeof raw !== 'boolean') {
      out.errors.push({ path, message: 'must be true or false' });
      return;
    }
    text = String(raw);
  } else if (typeof raw === 'string' || typeof raw === 'number') text = String(raw);
  else if (Array.isArray(raw) && raw.every((item) => typeof item === 'string' || typeof item === 'number'))
    text = raw.join(',');
  else {
    out.errors.push({ path, message: 'must be a string or a list of strings' });
    return;
  }
  const target: CompatTarget = {
    flag: (name, value) =>
      name === 'dev-root'
        ? out.warnings.push({
            path,
            message: `device nodes are looked up under --dev-root, which a file cannot move: give --dev-root ${value ?? ''} or the variable instead`,
          })
        : out.errors.push({ path, message: `sets --${name}, which only the command line can` }),
    setConfig: (to, value) => setIn(out.config, to, value),
    appendConfig: () => out.errors.push({ path, message: 'builds a list, which only the command line can' }),
  };
  try {
    option.apply(text, target);
  } catch (error) {
    out.errors.push({ path, message: (error as Error).message });
  }
}

/** Applies a section of settings; keys it does not know are warned about (NVIDIA's YAML reader skips them too). */
function applySection(
  out: Conversion,
  prefix: string,
  section: unknown,
  options: Readonly<Record<string, CompatOption>>,
  nested: Readonly<Record<string, (value: unknown) => void>> = {},
): void {
  if (section === undefined || section === null) return;
  if (!isObject(section)) {
    out.errors.push({ path: prefix, message: 'must be a mapping' });
    return;
  }
  for (const [key, value] of Object.entries(section)) {
    const path = `${prefix}.${key}`;
    const option = options[key];
    const inner = nested[key];
    if (option !== undefined) applySetting(out, path, option, value);
    else if (inner !== undefined) inner(value);
    else if (GFD_ONLY.has(key))
      out.warnings.push({
        path,
        message: "read by gpu-feature-discovery only; NVIDIA's device plugin ignores it too",
      });
    else out.warnings.push({ path, message: "unknown field, ignored (as NVIDIA's plugin does)" });
  }
}

/** `nvidia.com/<name>` as NVIDIA's NewResourceName builds it (the prefix is added when missing), or an error. */
function nvidiaResourceName(name: string): string {
  const full = name.startsWith('nvidia.com/') ? name : `nvidia.com/${name}`;
  if (full.length > 63) throw new Error(`${full} is longer than 63 characters`);
  const check = validateResourceName(full);
  if (!check.valid || full.indexOf('/') !== full.lastIndexOf('/'))
    throw new Error(`${JSON.stringify(name)} is not a valid resource name under nvidia.com/`);
  return full;
}

/** `sharing.timeSlicing` as our `sharing` keys: per-resource replicas, renameByDefault, failRequestsGreaterThanOne. */
function convertTimeSlicing(out: Conversion, section: unknown): void {
  const base = 'sharing.timeSlicing';
  if (!isObject(section)) {
    out.errors.push({ path: base, message: 'must be a mapping' });
    return;
  }
  const sharing: Doc = {};
  for (const [key, value] of Object.entries(section)) {
    const path = `${base}.${key}`;
    if (key === 'renameByDefault' || key === 'failRequestsGreaterThanOne') {
      if (typeof value === 'boolean') sharing[key] = value;
      else out.errors.push({ path, message: 'must be true or false' });
    } else if (key !== 'resources') {
      out.warnings.push({ path, message: "unknown field, ignored (as NVIDIA's plugin does)" });
    }
  }
  const resources = section['resources'];
  if (!Array.isArray(resources) || resources.length === 0) {
    out.errors.push({
      path: `${base}.resources`,
      message: 'no resources specified (a list of {name, replicas})',
    });
    return;
  }
  sharing['resources'] = resources.flatMap((entry: unknown, index) => {
    const path = `${base}.resources[${index}]`;
    if (!isObject(entry)) {
      out.errors.push({ path, message: 'must be a mapping with name and replicas' });
      return [];
    }
    const { name, replicas, rename, devices, ...rest } = entry;
    for (const key of Object.keys(rest))
      out.warnings.push({
        path: `${path}.${key}`,
        message: "unknown field, ignored (as NVIDIA's plugin does)",
      });
    let resource: string | undefined;
    if (typeof name !== 'string')
      out.errors.push({ path: `${path}.name`, message: 'no resource name specified' });
    else {
      try {
        resource = nvidiaResourceName(name);
      } catch (error) {
        out.errors.push({ path: `${path}.name`, message: (error as Error).message });
      }
    }
    if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 2) {
      out.errors.push({ path: `${path}.replicas`, message: 'number of replicas must be >= 2' });
      return [];
    }
    if (replicas > 64) {
      out.errors.push({ path: `${path}.replicas`, message: 'kdp advertises at most 64 replicas per GPU' });
      return [];
    }
    if (rename !== undefined && rename !== null)
      out.warnings.push({
        path: `${path}.rename`,
        message: `${NOT_YET}; kdp's own sharing.resources[].rename honours it`,
      });
    checkDevices(out, `${path}.devices`, devices);
    return resource === undefined ? [] : [{ name: resource, replicas }];
  });
  out.config['sharing'] = sharing;
}

/** Checks a `devices` value as NVIDIA parses it ("all", a count, a list of indexes or UUIDs); any but "all" is ignored. */
function checkDevices(out: Conversion, path: string, devices: unknown): void {
  if (devices === undefined || devices === null || devices === 'all') return;
  const valid =
    (typeof devices === 'number' && Number.isInteger(devices) && devices > 0) ||
    (Array.isArray(devices) &&
      devices.every(
        (item) =>
          (typeof item === 'number' && Number.isInteger(item) && item >= 0) ||
          (typeof item === 'string' && DEVICE_REF.test(item)),
      ));
  if (!valid) {
    out.errors.push({
      path,
      message: '"all", a count of devices, or a list of GPU indexes, MIG indexes (<gpu>:<mig>) and UUIDs',
    });
    return;
  }
  out.warnings.push({
    path,
    message: `${NOT_YET}: every GPU of the resource is shared; kdp's own sharing.resources[].devices honours it`,
  });
}

/**
 * NVIDIA k8s-device-plugin's configuration file (`version: v1`, `flags`, `sharing`, `resources`, `imex`), detected
 * by its keys (none of which our format has) and converted to ours: `flags` through the same options as the flags
 * and variables, `sharing.timeSlicing` to our per-resource replicas; `migStrategy` is set explicitly (NVIDIA's
 * default is `none`). MPS, and settings that the flags refuse, are errors naming the field.
 */
export const nvidiaConfigFormat: CompatConfigFormat = {
  detect(doc) {
    if (!isObject(doc)) return false;
    const sharing = doc['sharing'];
    return (
      ['version', 'flags', 'imex', 'resources'].some((key) => key in doc) ||
      (isObject(sharing) && ('timeSlicing' in sharing || 'mps' in sharing))
    );
  },
  convert(doc) {
    const out: Conversion = { config: { nvidia: { migStrategy: 'none' } }, errors: [], warnings: [] };
    if (!isObject(doc)) return { config: out.config, errors: [{ path: '', message: 'must be a mapping' }] };
    for (const [key, value] of Object.entries(doc)) {
      switch (key) {
        case 'version':
          if (value !== 'v1' && value !== '' && value !== null)
            out.errors.push({
              path: 'version',
              message: `unknown version ${JSON.stringify(value)} (v1 only)`,
            });
          break;
        case 'flags':
          applySection(out, 'flags', value, FLAG_KEYS, {
            plugin: (plugin) => applySection(out, 'flags.plugin', plugin, PLUGIN_KEYS),
          });
          break;
        case 'imex':
          applySection(out, 'imex', value, IMEX_KEYS);
          break;
        case 'resources':
          if (value !== null)
            out.warnings.push({
              path: 'resources',
              message: `${NOT_YET}; name resources with kdp's resourceNames / modelResourceNames`,
            });
          break;
        case 'sharing':
          applySection(
            out,
            'sharing',
            value,
            {},
            {
              timeSlicing: (section) => convertTimeSlicing(out, section),
              mps: () =>
                out.errors.push({
                  path: 'sharing.mps',
                  message: MPS_REFUSAL,
                }),
            },
          );
          break;
        default:
          out.warnings.push({ path: key, message: "unknown field, ignored (as NVIDIA's plugin does)" });
      }
    }
    return { config: out.config, errors: out.errors, warnings: out.warnings };
  },
};
