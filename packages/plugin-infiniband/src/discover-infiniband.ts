import type { DiscoverContext, DiscoverResult } from '@kdp/core';
import { createRdmaScanner } from './create-rdma-scanner';
import { planResources } from './plan-resources';
import type { RdmaConfig } from './rdma-config';

/** The `discover` command: one scan, every configured resource with its devices, exclusions and warnings. */
export async function discoverInfiniband(ctx: DiscoverContext<RdmaConfig>): Promise<DiscoverResult> {
  const scanner = createRdmaScanner({ sysfsRoot: ctx.flags.sysfsRoot, devRoot: ctx.flags.devRoot });
  const plan = planResources(ctx.config, await scanner.scan());
  return {
    resources: plan.resources.map((resource) => ({
      resourceName: resource.name,
      devices: resource.discovered,
    })),
    excluded: plan.excluded,
    warnings: plan.warnings,
  };
}
