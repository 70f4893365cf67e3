import { join } from 'node:path';
import { bundleEntry } from '@kdp/kubelet-sim/testing';
import { PLUGIN_NAMES, type PluginName } from '../plugin-names';

/** Native addons each plugin's build keeps out of its bundle (they resolve from the workspace's node_modules). */
const EXTERNAL: Partial<Record<PluginName, readonly string[]>> = { gpu: ['koffi'], usb: ['usb'] };

const packagesDir = join(__dirname, '..', '..', '..');

/**
 * Bundles the five plugins (and, with `demo: true`, the demo) as their `build` targets do, into
 * `<outDir>/<package folder>/dist/main.js`: the layout of `packages/`, so a demo bundle there finds the plugin
 * bundles beside it. `outDir` should lie inside the workspace so the external native addons resolve.
 */
export function bundlePlugins(
  outDir: string,
  options: { readonly demo?: boolean } = {},
): Record<PluginName, string> {
  const bundles = {} as Record<PluginName, string>;
  for (const plugin of PLUGIN_NAMES) {
    const outfile = join(outDir, `plugin-${plugin}`, 'dist', 'main.js');
    bundleEntry(join(packagesDir, `plugin-${plugin}`, 'src', 'main.ts'), {
      outfile,
      external: EXTERNAL[plugin] ?? [],
    });
    bundles[plugin] = outfile;
  }
  if (options.demo === true) {
    bundleEntry(join(packagesDir, 'demo', 'src', 'main.ts'), {
      outfile: join(outDir, 'demo', 'dist', 'main.js'),
    });
  }
  return bundles;
}
