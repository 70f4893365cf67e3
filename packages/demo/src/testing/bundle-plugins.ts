import { join } from 'node:path';
import { bundleEntry } from '@kdp/kubelet-sim/testing';
import { PLUGIN_NAMES, type PluginName } from '../plugin-names';

/**
 * Native addons each plugin's build keeps out of its bundle (they resolve from the workspace's node_modules):
 * koffi in every plugin (the runtime's malloc_trim), usb in usb's.
 */
const EXTERNAL: Record<PluginName, readonly string[]> = {
  gpu: ['koffi'],
  sriov: ['koffi'],
  infiniband: ['koffi'],
  usb: ['koffi', 'usb'],
  fpga: ['koffi'],
};

/** The repository's `packages/` (this file is packages/demo/src/testing/bundle-plugins.ts). */
const PACKAGES_DIR = join(__dirname, '..', '..', '..');

/** Where the sources are and what else to bundle. */
export interface BundleOptions {
  /** Also bundle the demo. */
  readonly demo?: boolean;
  /** Also bundle `kdp-device-plugins`. */
  readonly allInOne?: boolean;
  /** The repository's `packages/` (default: found from this file; a bundled caller passes its own). */
  readonly packagesDir?: string;
}

/** Bundles `packages/<folder>/src/main.ts` into `<outDir>/<folder>/dist/main.js`; returns that path. */
function bundlePackage(
  outDir: string,
  folder: string,
  options: BundleOptions,
  external: readonly string[] = [],
): string {
  const outfile = join(outDir, folder, 'dist', 'main.js');
  const entry = join(options.packagesDir ?? PACKAGES_DIR, folder, 'src', 'main.ts');
  bundleEntry(entry, { outfile, external });
  return outfile;
}

/**
 * Bundles the five plugins (with `allInOne: true` also `kdp-device-plugins`, with `demo: true` also the demo)
 * as their `build` targets do, into `<outDir>/<package folder>/dist/main.js`: the layout of `packages/`, so a
 * demo bundle there finds the plugin bundles beside it. `outDir` should lie inside the workspace so the external
 * native addons resolve.
 */
export function bundlePlugins(outDir: string, options: BundleOptions = {}): Record<PluginName, string> {
  const bundles = {} as Record<PluginName, string>;
  for (const plugin of PLUGIN_NAMES)
    bundles[plugin] = bundlePackage(outDir, `plugin-${plugin}`, options, EXTERNAL[plugin]);
  if (options.allInOne === true) bundleAllInOne(outDir, options);
  if (options.demo === true) bundlePackage(outDir, 'demo', options);
  return bundles;
}

/** Bundles `kdp-device-plugins` (all five plugins in one process) as its `build` target does; returns the path. */
export function bundleAllInOne(outDir: string, options: Pick<BundleOptions, 'packagesDir'> = {}): string {
  return bundlePackage(outDir, 'device-plugins', options, ['koffi', 'usb']);
}
