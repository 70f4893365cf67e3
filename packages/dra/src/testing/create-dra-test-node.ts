import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AnyPluginDefinition, MultiPluginProgram } from '@kdp/core/plugin';
import { startPluginRun, type PluginRun } from '@kdp/core/testing';
import { createDraServeMode, type DraServeModeOptions } from '../dra-serve-mode';
import { writeKubeconfig, type TestApiServer } from './write-kubeconfig';

/** Options of {@link createDraTestNode}. */
export interface DraTestNodeOptions {
  /** The plugin (or several, as one binary) run in this process as `serve --mode dra`. */
  readonly plugin: AnyPluginDefinition | MultiPluginProgram;
  /** An existing directory for the node's directories and kubeconfig; the test removes it. */
  readonly dir: string;
  /** The plugin's own flags: its roots, `--config`, `--poll-interval`, … */
  readonly flags: readonly string[];
  /**
   * The plugin's `--proc-root` when `flags` give one: the node's boot ID is written there. Without it the node
   * has a procfs of its own (`<dir>/proc`) and the DRA mode reads the boot ID there (`procRoot`).
   */
  readonly procRoot?: string | undefined;
  /** Further DRA mode options (`onEvent`, …); `sliceDebounceMs` is 10 unless given. */
  readonly mode?: DraServeModeOptions | undefined;
}

/** What the node is told when the API server runs: `runDraConformance`'s `onReady` argument. */
export interface DraTestNodeReady {
  readonly apiServer: TestApiServer;
  readonly nodeName: string;
}

/** The node's share of `runDraConformance`'s options: its directories and its start, restart and reboot. */
export interface DraTestNodeSuite {
  readonly pluginsRegistryDir: string;
  readonly cdiDir: string;
  /** The simulated kubelet's directory. */
  readonly dir: string;
  readonly onReady: (ready: DraTestNodeReady) => void;
  readonly restartPlugin: () => Promise<void>;
  readonly rebootNode: () => Promise<void>;
}

/** A node for DRA tests: kubelet directories, a boot ID, and the plugin's DRA driver running in this process. */
export interface DraTestNode {
  /** `--plugins-registry-dir`: where the driver registers. */
  readonly pluginsRegistryDir: string;
  /** `--dra-plugins-dir`: the driver's socket and checkpoint. */
  readonly draPluginsDir: string;
  /** `--cdi-dir`: the per-claim CDI specs. */
  readonly cdiDir: string;
  /** The simulated kubelet's directory (`dir` of kubelet-sim or of the suite). */
  readonly kubeletDir: string;
  /** `--kubeconfig`, written by {@link DraTestNode.start}. */
  readonly kubeconfig: string;
  /** The boot ID file the driver's checkpoint is checked against. */
  readonly bootIdFile: string;
  /** The same, as the options `runDraConformance` takes from the node. */
  readonly suite: DraTestNodeSuite;
  /** Writes the kubeconfig for the API server and starts the driver as node `nodeName`. */
  start(ready: DraTestNodeReady): PluginRun;
  /** Stops the driver and starts it again with the same command line. */
  restart(): Promise<void>;
  /** Stops the driver, gives the node a new boot ID, empties the CDI directory (a tmpfs) and starts it again. */
  reboot(): Promise<void>;
  /** The driver's run now; undefined before {@link DraTestNode.start}. */
  run(): PluginRun | undefined;
  /** What the driver wrote to stderr so far ('' before a start). */
  stderr(): string;
  /** Stops the driver, if it runs. */
  stop(): Promise<void>;
}

/** Creates a DRA test node in `options.dir` (with boot ID 1); nothing runs until {@link DraTestNode.start}. */
export function createDraTestNode(options: DraTestNodeOptions): DraTestNode {
  const { dir } = options;
  const paths = {
    pluginsRegistryDir: join(dir, 'plugins_registry'),
    draPluginsDir: join(dir, 'plugins'),
    cdiDir: join(dir, 'cdi'),
    kubeletDir: join(dir, 'kubelet'),
    kubeconfig: join(dir, 'kubeconfig'),
  };
  for (const path of [paths.pluginsRegistryDir, paths.draPluginsDir, paths.cdiDir]) mkdirSync(path);
  const ownProcRoot = options.procRoot === undefined ? join(dir, 'proc') : undefined;
  const bootIdFile = join(options.procRoot ?? join(dir, 'proc'), 'sys/kernel/random/boot_id');
  mkdirSync(join(bootIdFile, '..'), { recursive: true });
  let boots = 0;
  const boot = (): void => {
    boots += 1;
    writeFileSync(bootIdFile, `b0b0b0b0-0000-4000-8000-${String(boots).padStart(12, '0')}\n`);
  };
  boot();
  const modes = {
    dra: createDraServeMode({
      sliceDebounceMs: 10,
      ...(ownProcRoot !== undefined ? { procRoot: ownProcRoot } : {}),
      ...options.mode,
    }),
  };
  let argv: readonly string[] = [];
  let current: PluginRun | undefined;
  const launch = (): PluginRun => (current = startPluginRun(options.plugin, argv, { modes }));

  const node: DraTestNode = {
    ...paths,
    bootIdFile,
    start(ready) {
      writeKubeconfig(paths.kubeconfig, ready.apiServer);
      argv = [
        ...['serve', '--mode', 'dra', ...options.flags],
        ...['--node-name', ready.nodeName, '--kubeconfig', paths.kubeconfig, '--cdi-dir', paths.cdiDir],
        ...['--plugins-registry-dir', paths.pluginsRegistryDir, '--dra-plugins-dir', paths.draPluginsDir],
      ];
      return launch();
    },
    async restart() {
      await current?.stop();
      launch();
    },
    async reboot() {
      await current?.stop();
      boot();
      for (const name of readdirSync(paths.cdiDir))
        rmSync(join(paths.cdiDir, name), { recursive: true, force: true });
      launch();
    },
    run: () => current,
    stderr: () => current?.stderr() ?? '',
    async stop() {
      await current?.stop();
    },
    suite: {
      pluginsRegistryDir: paths.pluginsRegistryDir,
      cdiDir: paths.cdiDir,
      dir: paths.kubeletDir,
      onReady: (ready) => void node.start(ready),
      restartPlugin: () => node.restart(),
      rebootNode: () => node.reboot(),
    },
  };
  return node;
}
