import { bindPluginMetrics } from '../bind-plugin-metrics';
import { createDevicePlugin } from '../device-plugin';
import { requireDirectories } from './require-directories';
import type { ServeMode } from './serve-mode';

/**
 * The `device-plugin` serve mode, the default: one device plugin for the whole process, serving each resource on
 * its own socket in `--device-plugin-dir` and registering on kubelet.sock (or through the plugin watcher's
 * `--plugins-registry-dir` with `--registration plugin-watcher`). It starts before the plugins' first scans, so
 * each resource registers as soon as it appears; `/readyz` follows the registrations (the contract metrics).
 */
export function createDevicePluginServeMode(): ServeMode {
  return {
    description: "the kubelet's device-plugin API",
    commonFlags: ['device-plugin-dir', 'registration'],
    checkDirectories: (common) =>
      requireDirectories([
        common.registration === 'plugin-watcher'
          ? ['--plugins-registry-dir', common.pluginsRegistryDir]
          : ['--device-plugin-dir', common.devicePluginDir],
      ]),
    create(context) {
      const { common, metrics } = context;
      const devicePlugin = createDevicePlugin({
        devicePluginDir: common.devicePluginDir,
        registration: common.registration,
        pluginsRegistryDir: common.pluginsRegistryDir,
        logger: context.logger,
        clock: context.clock,
      });
      const unbind = bindPluginMetrics(devicePlugin, metrics);
      return {
        resources: () => devicePlugin,
        open: () => devicePlugin.start(),
        stopped: devicePlugin.stopped,
        async stop() {
          await devicePlugin.stop();
          unbind();
        },
        readiness: () => metrics.readiness(),
      };
    },
  };
}
