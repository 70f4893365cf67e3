import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DraDirs } from './plugin-processes';
import type { SampleNode } from './sample-node/create-sample-node';

/** The socket of the longest resource name (the FPGA's af- name) must fit in 107 bytes under `<dir>/dp`. */
const MAX_DEVICE_PLUGIN_DIR = 23;

/** The directories and log file every plugin process is pointed at. */
export interface DemoPaths {
  readonly devicePluginDir: string;
  readonly cdiDir: string;
  readonly devinfoDir: string;
  readonly logFile: string;
}

/** Where the demo's sockets, CDI specs, device-info files, plugin log and DRA files go. */
export interface DemoLayout {
  /** The temp dir holding them: the node's own when its paths stay short enough there, else a short one. */
  readonly base: string;
  readonly paths: DemoPaths;
  readonly dra: DraDirs;
}

/** The directory for the demo's files: the node's temp dir when the socket paths stay short enough there. */
export function demoBase(node: SampleNode): string {
  return join(node.root, 'dp').length <= MAX_DEVICE_PLUGIN_DIR ? node.root : shortTempDir();
}

/** Lays the demo's directories out in `base` (see {@link demoBase}) and creates them. */
export function createDemoLayout(base: string, draNodeName: string): DemoLayout {
  const paths = {
    devicePluginDir: join(base, 'dp'),
    cdiDir: join(base, 'cdi'),
    devinfoDir: join(base, 'devinfo'),
    logFile: join(base, 'plugins.log'),
  };
  const dra = {
    nodeName: draNodeName,
    kubeconfig: join(base, 'kubeconfig'),
    pluginsRegistryDir: join(base, 'plugins_registry'),
    draPluginsDir: join(base, 'plugins'),
  };
  for (const dir of [paths.cdiDir, paths.devinfoDir, dra.pluginsRegistryDir, dra.draPluginsDir])
    mkdirSync(dir, { recursive: true });
  return { base, paths, dra };
}

/** A temp dir whose `dp/` is short enough for every plugin's socket path (at most 107 bytes). */
function shortTempDir(): string {
  for (const parent of [tmpdir(), '/tmp']) {
    if (join(parent, 'kdp-XXXXXX', 'dp').length <= MAX_DEVICE_PLUGIN_DIR)
      return mkdtempSync(join(parent, 'kdp-'));
  }
  return mkdtempSync(join(tmpdir(), 'kdp-'));
}
