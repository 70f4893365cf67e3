import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { allInOneServeArgs, createSampleNode, type SampleNode } from '@kdp/demo';
import { createKubeletSim, type KubeletSim } from '@kdp/kubelet-sim';
import { inspectorUrlIn } from './wire-inspector';
import { metricsUrlOf, spawnPlugin, type PluginProcess } from '@kdp/kubelet-sim/testing';

/** `kdp-device-plugins`' bundle, as `npx nx run @kdp/device-plugins:build` writes it. */
export const ALL_IN_ONE_BUNDLE = join(
  __dirname,
  '..',
  '..',
  '..',
  'packages',
  'device-plugins',
  'dist',
  'main.js',
);

/** The all-in-one process serving the demo's sample node to a kubelet-sim, every resource registered. */
export interface WireTarget {
  readonly node: SampleNode;
  readonly sim: KubeletSim;
  readonly plugin: PluginProcess;
  /** Every resource the sample node offers, with its socket path. */
  readonly sockets: ReadonlyArray<{ readonly resource: string; readonly path: string }>;
  /** The process's /metrics (served on 127.0.0.1, a port of its choosing). */
  readonly metricsUrl: string;
  /** Its inspector (`--inspect=127.0.0.1:0`), for a full garbage collection before memory is measured. */
  readonly inspectorUrl: string;
  /** Stops the process and the simulator and deletes the node. */
  close(): Promise<void>;
}

/** Options of {@link startWireTarget}. */
export interface WireTargetOptions {
  /** Bound on the registration of every resource with all its devices. */
  readonly registrationTimeoutMs: number;
}

/**
 * Builds the demo's sample node (all five device families, nine resources), starts a kubelet-sim on it and
 * `kdp-device-plugins serve --plugins gpu,sriov,infiniband,usb,fpga` against it, and waits until every resource
 * registered with its devices.
 */
export async function startWireTarget(options: WireTargetOptions): Promise<WireTarget> {
  if (!existsSync(ALL_IN_ONE_BUNDLE))
    throw new Error(`${ALL_IN_ONE_BUNDLE} is missing: run npx nx run @kdp/device-plugins:build`);
  const node = createSampleNode();
  const dir = join(node.root, 'dp');
  const cdiDir = join(node.root, 'cdi');
  const devinfoDir = join(node.root, 'devinfo');
  for (const sub of [cdiDir, devinfoDir]) mkdirSync(sub);
  const sim = await createKubeletSim({ dir });
  const plugin = spawnPlugin(
    ALL_IN_ONE_BUNDLE,
    [
      ...allInOneServeArgs({ node, devicePluginDir: dir, cdiDir, devinfoDir }),
      // Info: the line naming the metrics URL is logged at info.
      ...['--metrics-address', '127.0.0.1:0', '--log-level', 'info'],
    ],
    { ...process.env, NODE_OPTIONS: '--inspect=127.0.0.1:0' },
  );
  const close = async (): Promise<void> => {
    await plugin.kill();
    await sim.close();
    node.remove();
  };
  try {
    const sockets = await Promise.all(
      node.expected.map(async ({ resource, devices }) => {
        const state = await sim.until(
          resource,
          (s) => s.healthy.length === devices,
          options.registrationTimeoutMs,
        );
        return { resource, path: join(dir, state.endpoint) };
      }),
    );
    const metricsUrl = await metricsUrlOf(plugin);
    const inspectorUrl = inspectorUrlIn(plugin.stderr());
    if (inspectorUrl === undefined) throw new Error('the process did not open its inspector');
    return { node, sim, plugin, sockets, metricsUrl, inspectorUrl, close };
  } catch (error) {
    const stderr = plugin.stderr().split('\n').slice(-20).join('\n');
    await close();
    throw new Error(`the all-in-one process did not register every resource; its stderr:\n${stderr}`, {
      cause: error,
    });
  }
}
