import { join } from 'node:path';
import {
  createDevicePlugin,
  createFsWatchTrigger,
  createPollingSource,
  defineResource,
  serveDevicePlugin,
  topologyPreferredAllocation,
  type ServeContext,
} from '@kdp/core';
import { createRdmaScanner } from './create-rdma-scanner';
import { planResources, type RdmaPayload, type ResourcePlan } from './plan-resources';
import { resourceNameOf, type RdmaConfig, type RdmaResourceConfig } from './rdma-config';

const identity = (resource: RdmaResourceConfig): string =>
  `${resourceNameOf(resource)}\u0000${resource.mode}`;

/**
 * The `serve` command: one kubelet resource per configured entry, rescanned every `pollIntervalMs` and at once
 * on changes under <dev-root>/infiniband and <sysfs-root>/class/infiniband; configuration reloads add and remove
 * resources. Resolves once SIGTERM/SIGINT stopped everything.
 */
export async function serveInfiniband(ctx: ServeContext<RdmaConfig>): Promise<void> {
  const { flags, logger } = ctx;
  const scanner = createRdmaScanner({ sysfsRoot: flags.sysfsRoot, devRoot: flags.devRoot });
  const distances = (await scanner.numa()).distances;
  let loggedWarnings = '';
  const plan = async (): Promise<ResourcePlan> => {
    const result = planResources(ctx.config, await scanner.scan());
    const key = result.warnings.join('\n');
    if (key !== loggedWarnings) {
      loggedWarnings = key;
      for (const warning of result.warnings) logger.warn({ warning }, 'RDMA scan warning');
    }
    return result;
  };
  const triggerPaths = [join(flags.devRoot, 'infiniband'), join(flags.sysfsRoot, 'class', 'infiniband')];

  const declare = (resource: RdmaResourceConfig) => {
    const name = resourceNameOf(resource);
    const source = createPollingSource<RdmaPayload>({
      scan: async () => (await plan()).resources.find((r) => r.name === name)?.devices ?? [],
      intervalMs: ctx.config.pollIntervalMs,
      triggers: [createFsWatchTrigger(triggerPaths)],
      onError: (error) => logger.error({ resource: name, err: String(error) }, 'RDMA scan failed'),
    });
    return resource.mode === 'exclusive'
      ? defineResource<RdmaPayload>({
          name,
          source,
          options: { getPreferredAllocationAvailable: true },
          preferredAllocation: topologyPreferredAllocation({ distances }),
        })
      : defineResource<RdmaPayload>({ name, source });
  };

  let served = new Map(ctx.config.configList.map((resource) => [identity(resource), resource]));
  const plugin = createDevicePlugin({
    resources: [...served.values()].map(declare),
    devicePluginDir: flags.devicePluginDir,
    logger,
    handleSignals: false,
  });
  const unsubscribe = ctx.onConfigChange(({ value }) => {
    const next = new Map(value.configList.map((resource) => [identity(resource), resource]));
    const removed = [...served.keys()].filter((key) => !next.has(key));
    const added = [...next.entries()].filter(([key]) => !served.has(key));
    served = next;
    void (async () => {
      for (const key of removed) await plugin.removeResource(key.split('\u0000')[0] as string);
      for (const [, resource] of added) plugin.addResource(declare(resource));
      if (removed.length + added.length > 0) {
        logger.info(
          {
            removed: removed.map((k) => k.split('\u0000')[0]),
            added: added.map(([, r]) => resourceNameOf(r)),
          },
          'resources changed by the new configuration',
        );
      }
    })().catch((error: unknown) =>
      logger.error({ err: String(error) }, 'applying the new configuration failed'),
    );
  });
  try {
    await serveDevicePlugin(ctx, plugin);
  } finally {
    unsubscribe();
  }
}
