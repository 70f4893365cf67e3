import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AnyPluginDefinition, MultiPluginProgram } from '@kdp/core/plugin';
import { startPluginRun, type PluginRun } from '@kdp/core/testing';
import { createDraPlayground, writeKubeconfig, type DraPlayground } from '@kdp/kubelet-sim';
import { createDraServeMode } from '../dra-serve-mode';

/** Options of {@link startPlaygroundDriver}. */
export interface PlaygroundDriverOptions {
  /** The plugin run in this process as `serve --mode dra`. */
  readonly plugin: AnyPluginDefinition | MultiPluginProgram;
  /** Its DRA driver name (`gpu.kdp.dev`). */
  readonly driver: string;
  /** An existing directory for the playground, the driver's directories and the kubeconfig; the test removes it. */
  readonly dir: string;
  /** The plugin's own flags: its roots, `--config`, `--poll-interval`, … */
  readonly flags: readonly string[];
  /** The fixture's /dev, where the playground's runtime looks for CDI device nodes. */
  readonly devRoot: string;
  /** The plugin's `--proc-root` when `flags` give one (the boot ID is written there); else `<dir>/proc`. */
  readonly procRoot?: string | undefined;
}

/** A two-node DRA playground with a plugin's DRA driver on its second node, and a kubeconfig for kubectl. */
export interface PlaygroundDriver {
  readonly playground: DraPlayground;
  /** The node the driver runs on (the second: the scheduler must choose it). */
  readonly nodeName: string;
  /** The kubeconfig reaching the playground (url, token, CA), for the driver and for kubectl. */
  readonly kubeconfig: string;
  /** The directory the driver writes its CDI specs to. */
  readonly cdiDir: string;
  /** The driver's run (a new one after {@link PlaygroundDriver.reboot}). */
  readonly run: PluginRun;
  /**
   * Reboots the driver's node as far as the driver sees it: the driver stops, the boot ID changes, the CDI
   * directory (a tmpfs) is emptied, and the driver starts again; resolves once it is registered again.
   */
  reboot(): Promise<void>;
  /** Stops the driver and the playground. */
  stop(): Promise<void>;
}

/**
 * Starts `createDraPlayground` with two nodes (the fixture's /dev as the runtime's), the plugin's DRA driver on
 * the second node, and resolves once the driver is registered and its ResourceSlices are in the API server.
 */
export async function startPlaygroundDriver(options: PlaygroundDriverOptions): Promise<PlaygroundDriver> {
  const { dir } = options;
  const cdiDir = join(dir, 'cdi');
  const draPluginsDir = join(dir, 'plugins');
  for (const path of [cdiDir, draPluginsDir]) mkdirSync(path, { recursive: true });
  const ownProcRoot = options.procRoot === undefined ? join(dir, 'proc') : undefined;
  const bootIdDir = join(options.procRoot ?? join(dir, 'proc'), 'sys/kernel/random');
  mkdirSync(bootIdDir, { recursive: true });
  writeFileSync(join(bootIdDir, 'boot_id'), 'b0b0b0b0-0000-4000-8000-000000000001\n');
  const playground = await createDraPlayground({
    pluginsRegistryDir: join(dir, 'registry'),
    stateDir: join(dir, 'state'),
    nodes: 2,
    cdiDir,
    devRoot: options.devRoot,
    podSyncRetryMs: 100,
  });
  const node = playground.nodes[1];
  if (node === undefined) throw new Error('the playground has no second node');
  const kubeconfig = join(dir, 'kubeconfig');
  await writeKubeconfig(kubeconfig, {
    server: playground.url,
    token: playground.token,
    caData: playground.caData,
  });
  const connection = () =>
    node.sim.waitFor('dra-connection', (e) => e.driver === options.driver && e.connected, 30_000);
  const connected = connection();
  const launch = (): PluginRun =>
    startPluginRun(
      options.plugin,
      [
        ...['serve', '--mode', 'dra', ...options.flags, '--node-name', node.name, '--kubeconfig', kubeconfig],
        ...['--cdi-dir', cdiDir, '--plugins-registry-dir', node.pluginsRegistryDir],
        ...['--dra-plugins-dir', draPluginsDir],
      ],
      {
        modes: {
          dra: createDraServeMode({
            sliceDebounceMs: 10,
            ...(ownProcRoot === undefined ? {} : { procRoot: ownProcRoot }),
          }),
        },
      },
    );
  let run = launch();
  let boots = 1;
  const stop = async (): Promise<void> => {
    await run.stop();
    await playground.close();
  };
  try {
    await connected;
    await waitForSlices(playground, options.driver, node.name);
  } catch (err) {
    await stop();
    throw new Error(`${(err as Error).message}\ndriver stderr:\n${run.stderr()}`, { cause: err });
  }
  return {
    playground,
    nodeName: node.name,
    kubeconfig,
    cdiDir,
    get run() {
      return run;
    },
    async reboot() {
      await run.stop();
      boots += 1;
      writeFileSync(
        join(bootIdDir, 'boot_id'),
        `b0b0b0b0-0000-4000-8000-${String(boots).padStart(12, '0')}\n`,
      );
      rmSync(cdiDir, { recursive: true, force: true });
      mkdirSync(cdiDir, { recursive: true });
      const again = connection();
      run = launch();
      await again;
    },
    stop,
  };
}

/** Resolves once a ResourceSlice of `driver` on `nodeName` with devices is stored; rejects after 30 s. */
async function waitForSlices(playground: DraPlayground, driver: string, nodeName: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  const published = (): boolean =>
    playground.store.list('resourceslices').items.some((item) => {
      const spec = (item as { spec?: { driver?: string; nodeName?: string; devices?: unknown[] } }).spec;
      return spec?.driver === driver && spec.nodeName === nodeName && (spec.devices?.length ?? 0) > 0;
    });
  while (!published()) {
    if (Date.now() > deadline) throw new Error(`no ResourceSlice of ${driver} on ${nodeName} within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
