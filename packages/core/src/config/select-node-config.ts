import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from './config-error';

/** How a configuration directory's key is chosen for this node. */
export interface NodeConfigSelection {
  /** This node's name (`--node-name`, default `$NODE_NAME`); a key of that name is this node's own. */
  readonly nodeName?: string;
  /** The node label naming the key (`--node-config-label`, e.g. NVIDIA's `nvidia.com/device-plugin.config`). */
  readonly label?: string;
  /** The node's labels now; undefined while they are unknown (no API access yet). */
  readonly labels?: () => Readonly<Record<string, string>> | undefined;
  /** The key used when neither the label nor the node name names one (`--default-config`). */
  readonly defaultKey?: string;
}

const EXTENSIONS = ['', '.yaml', '.yml', '.json'];
const KEY = /^[A-Za-z0-9][A-Za-z0-9._-]{0,252}$/;

/** The keys of a configuration directory (a ConfigMap volume): its visible files, without the `..data` plumbing. */
async function keysOf(dir: string): Promise<string[]> {
  const names = (await readdir(dir)).filter((name) => KEY.test(name)).sort();
  const files = await Promise.all(
    names.map(async (name) =>
      (await stat(join(dir, name)).catch(() => undefined))?.isFile() ? name : undefined,
    ),
  );
  return files.filter((name): name is string => name !== undefined);
}

/** The file of `key` among `keys`: the key itself, or with `.yaml`, `.yml` or `.json`. */
const fileOf = (keys: readonly string[], key: string): string | undefined =>
  EXTENSIONS.map((ext) => `${key}${ext}`).find((name) => keys.includes(name));

/**
 * Chooses this node's file in a configuration directory, first match wins: the key named by the node label
 * (`--node-config-label`), the key named after the node, `--default-config`, a key named `default`, the only key.
 * Resolves with the file and why it was chosen; rejects with a {@link ConfigError} naming the directory when a
 * label names a missing key or nothing matches.
 */
export async function selectNodeConfig(
  dir: string,
  selection: NodeConfigSelection,
): Promise<{ readonly file: string; readonly reason: string }> {
  let keys: string[];
  try {
    keys = await keysOf(dir);
  } catch (error) {
    throw new ConfigError(dir, [
      { path: '', message: `cannot list the configuration directory: ${(error as Error).message}` },
    ]);
  }
  const listed = keys.length === 0 ? 'it holds no configuration file' : `its keys: ${keys.join(', ')}`;
  const pick = (key: string, reason: string, required: boolean) => {
    const name = fileOf(keys, key);
    if (name !== undefined) return { file: join(dir, name), reason };
    if (required)
      throw new ConfigError(dir, [
        { path: '', message: `${reason} names no key of the directory (${listed})` },
      ]);
    return undefined;
  };
  const labelValue = selection.label === undefined ? undefined : selection.labels?.()?.[selection.label];
  const chosen =
    (labelValue !== undefined && labelValue !== ''
      ? pick(labelValue, `node label ${selection.label}=${labelValue}`, true)
      : undefined) ??
    (selection.nodeName !== undefined && selection.nodeName !== ''
      ? pick(selection.nodeName, `node name ${selection.nodeName}`, false)
      : undefined) ??
    (selection.defaultKey !== undefined
      ? pick(selection.defaultKey, `--default-config ${selection.defaultKey}`, true)
      : undefined) ??
    pick('default', 'the key named default', false) ??
    (keys.length === 1 && keys[0] !== undefined
      ? { file: join(dir, keys[0]), reason: 'the only key' }
      : undefined);
  if (chosen === undefined) {
    const node =
      selection.nodeName === undefined
        ? 'this node (no --node-name or $NODE_NAME)'
        : `node ${selection.nodeName}`;
    throw new ConfigError(dir, [
      {
        path: '',
        message: `no key for ${node}: ${listed}; add one named after the node or "default", or pass --default-config KEY`,
      },
    ]);
  }
  return chosen;
}
