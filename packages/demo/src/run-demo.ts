import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiServer, createKubeletSim, type ApiServer, type KubeletSim } from '@kdp/kubelet-sim';
import { DEMO_USAGE, parseDemoArgs } from './demo-args';
import { renderDeviceTable } from './device-table';
import { createLiveView } from './live-view';
import { PLUGIN_NAMES } from './plugin-names';
import { createPluginLogs } from './plugin-logs';
import {
  ALL_IN_ONE,
  DRA_PLUGIN,
  now,
  startDraPlugin,
  startPlugins,
  type PluginEnvironment,
  type PluginProcess,
} from './plugin-processes';
import { createSampleNode, type SampleNode } from './sample-node/create-sample-node';
import { admitSamplePods } from './steps/admit-sample-pods';
import { logTail, ms, type DemoContext } from './steps/demo-context';
import { failAndRecover } from './steps/fail-and-recover';
import { restartKubelet } from './steps/restart-kubelet';
import type { DraSide } from './steps/dra-side';
import { followDraRestart } from './steps/follow-dra-restart';
import { serveThroughDra } from './steps/serve-through-dra';
import { waitForRegistration } from './steps/wait-for-registration';

/** Where the demo writes and what it runs. */
export interface DemoIo {
  readonly write: (text: string) => void;
  readonly writeError: (text: string) => void;
  /** Whether stdout is a terminal (live table redrawn in place). */
  readonly tty: boolean;
  /** The terminal's width, when it is one. */
  readonly columns?: () => number | undefined;
  /** Folder holding `plugin-<name>/dist/main.js` and `device-plugins/dist/main.js`. */
  readonly packagesDir: string;
  /** Registers what Ctrl-C (SIGINT/SIGTERM) does; returns the unregistration. Default: process signals. */
  readonly onInterrupt?: (handler: () => void) => () => void;
  /** How long each step waits for the plugins (ms); default 30 000. */
  readonly timeoutMs?: number;
}

class Interrupted extends Error {}

/** The node's name in the API server (ResourceSlices, claim allocations). */
const DRA_NODE = 'kdp-demo-node';
/** The DRA driver of {@link DRA_PLUGIN}. */
const DRA_DRIVER = `${DRA_PLUGIN}.kdp.dev`;

/** The socket of the longest resource name (the FPGA's af- name) must fit in 107 bytes under `<dir>/dp`. */
const MAX_DEVICE_PLUGIN_DIR = 23;

/**
 * The demo: a sample node in a temp dir, kubelet-sim in-process, the five plugin binaries as processes (or
 * `kdp-device-plugins` running all five in one, with `--all-in-one`), and the USB plugin once more through DRA
 * (`--mode dra`, against kubelet-sim's DRA side and API server); then registration, the live table, a sample
 * pod per resource, a failing and recovering GPU, the USB devices' ResourceSlices and a prepared ResourceClaim,
 * and a kubelet restart.
 * Resolves with the exit code: 0 done (or stopped with Ctrl-C), 1 a step failed, 2 a usage error.
 */
export async function runDemo(argv: readonly string[], io: DemoIo): Promise<number> {
  let args;
  try {
    args = parseDemoArgs(argv);
  } catch (err) {
    io.writeError(`kdp-demo: ${(err as Error).message}\n${DEMO_USAGE}`);
    return 2;
  }
  if (args.help) {
    io.write(DEMO_USAGE);
    return 0;
  }
  const timeoutMs = io.timeoutMs ?? 30_000;
  const began = now();
  const holders = new Map<string, string>();
  const logs = createPluginLogs();
  let node: SampleNode | undefined;
  let base: string | undefined;
  let sim: KubeletSim | undefined;
  let plugins: PluginProcess[] = [];
  let api: ApiServer | undefined;
  let draProcess: PluginProcess | undefined;
  let stopping = false;
  let expected: DemoContext['node']['expected'] = [];
  const view = createLiveView({
    write: io.write,
    tty: io.tty,
    ...(io.columns ? { columns: io.columns } : {}),
    render: () =>
      renderDeviceTable({
        expected,
        resource: (name) => sim?.resource(name),
        holder: (resource, id) => holders.get(`${resource} ${id}`),
      }),
  });

  let abort: (err: Error) => void = () => undefined;
  const aborted = new Promise<never>((_, reject) => (abort = reject));
  aborted.catch(() => undefined);
  const guard = <T>(promise: Promise<T>): Promise<T> => Promise.race([promise, aborted]);
  const unregister = (io.onInterrupt ?? onProcessSignals)(() => {
    if (!stopping) abort(new Interrupted('interrupted'));
  });

  let failed = false;
  try {
    view.log(
      args.allInOne
        ? `kdp demo: kubelet-sim and the five kdp device plugins in one process (${ALL_IN_ONE}) on a sample node`
        : 'kdp demo: kubelet-sim and the five kdp device plugins on a sample node',
      '',
    );
    node = createSampleNode();
    expected = node.expected;
    // The node's temp dir holds the sockets too when their paths stay short enough there.
    base = join(node.root, 'dp').length <= MAX_DEVICE_PLUGIN_DIR ? node.root : shortTempDir();
    const paths = {
      devicePluginDir: join(base, 'dp'),
      cdiDir: join(base, 'cdi'),
      devinfoDir: join(base, 'devinfo'),
      logFile: join(base, 'plugins.log'),
    };
    const dra = {
      nodeName: DRA_NODE,
      kubeconfig: join(base, 'kubeconfig'),
      pluginsRegistryDir: join(base, 'plugins_registry'),
      draPluginsDir: join(base, 'plugins'),
    };
    for (const dir of [paths.cdiDir, paths.devinfoDir, dra.pluginsRegistryDir, dra.draPluginsDir])
      mkdirSync(dir, { recursive: true });
    view.log(
      `  node     ${node.root}  (sys, proc, dev; plugin configs in config/)`,
      '           2 NUMA nodes: 2× NVIDIA H100, AMD MI210, Intel E810 with 6 VFs, 2× ConnectX-6 (InfiniBand),',
      '           Intel FPGA (DFL), 6 USB devices (2 FTDI serial, webcam, Zigbee stick, hub, keyboard)',
      `  kubelet  ${join(paths.devicePluginDir, 'kubelet.sock')}  (kubelet-sim, in this process)`,
      args.allInOne
        ? `  plugins  one process: node packages/device-plugins/dist/main.js serve --plugins ${PLUGIN_NAMES.join(',')} …`
        : '  plugins  five processes: node packages/plugin-<name>/dist/main.js serve …',
      `  DRA      ${DRA_DRIVER}: ${args.allInOne ? `a second ${ALL_IN_ONE} --plugins ${DRA_PLUGIN}` : `the ${DRA_PLUGIN} plugin's binary run again`} with --mode dra, for the same USB`,
      "           devices (one node serving a family both ways is for this demo only); kubelet-sim's DRA side and API server",
      `  logs     ${paths.logFile}`,
      '',
    );
    api = await createApiServer({ nodes: [DRA_NODE] });
    writeFileSync(
      dra.kubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        'current-context': 'demo',
        contexts: [{ name: 'demo', context: { cluster: 'demo', user: 'demo' } }],
        clusters: [{ name: 'demo', cluster: { server: api.url } }],
        users: [{ name: 'demo', user: {} }],
      }),
      { mode: 0o600 },
    );
    sim = await createKubeletSim({
      dir: paths.devicePluginDir,
      dra: { pluginsRegistryDir: dra.pluginsRegistryDir, apiServer: { url: api.url }, nodeName: DRA_NODE },
    });
    sim.events.on('event', () => view.refresh());
    const env: PluginEnvironment = {
      node,
      packagesDir: io.packagesDir,
      ...paths,
      onLog: (entry) => logs.add(entry),
      onError: (source, message) => view.log(`  ! [${source}] ${message}`),
      onExit: (process, code, signal) => {
        if (stopping) return;
        const how = signal !== null ? `on ${signal}` : `with code ${code}`;
        const what =
          process.plugins.length === 1 ? `the ${process.name} plugin` : `the ${process.name} process`;
        abort(new Error(`${what} exited ${how}; the last lines of its log:\n${logTail(process)}`));
      },
    };
    plugins = startPlugins(env, { allInOne: args.allInOne });
    const ctx: DemoContext = { sim, node, plugins, logs, view, holders, timeoutMs };

    view.log(
      args.allInOne
        ? `1/5 Starting ${ALL_IN_ONE}: each of its plugins serves its sockets, registers, and lists its devices`
        : '1/5 Starting the plugins: each serves its socket, registers, and lists its devices',
    );
    await guard(waitForRegistration(ctx));
    // The DRA driver starts once the device plugins are up, and is up by its step.
    draProcess = startDraPlugin(env, dra, args.allInOne);
    const draSide: DraSide = {
      api,
      nodeName: DRA_NODE,
      driver: DRA_DRIVER,
      cdiDir: paths.cdiDir,
      process: draProcess,
    };
    view.snapshot('devices as kubelet-sim sees them');
    view.log('', '2/5 Admitting a sample pod per resource: what each container receives');
    await guard(admitSamplePods(ctx));
    view.log('', `3/5 A device fails and recovers`);
    await guard(failAndRecover(ctx));
    view.log(
      '',
      `4/5 The ${DRA_PLUGIN} devices through Dynamic Resource Allocation: ResourceSlices, a ResourceClaim, its CDI devices`,
    );
    const held = await guard(serveThroughDra(ctx, draSide));
    view.log(
      '',
      '5/5 Restarting the kubelet: every plugin must notice and register again; the DRA driver publishes again',
    );
    const draBack = followDraRestart(ctx, draSide, held);
    await guard(restartKubelet(ctx));
    await guard(draBack.report());
    view.snapshot('after the kubelet restart');
    if (args.once) {
      view.log('', `All steps passed in ${ms(now() - began)}.`);
    } else {
      view.log('', 'Running: the table follows every change the plugins report. Ctrl-C stops.');
      view.follow();
      await aborted;
    }
    return 0;
  } catch (err) {
    if (err instanceof Interrupted) {
      view.log('', 'Interrupted.');
      return 0;
    }
    failed = true;
    io.writeError(`kdp-demo: ${(err as Error).message}\n`);
    return 1;
  } finally {
    stopping = true;
    view.close();
    unregister();
    await Promise.all([...plugins, ...(draProcess === undefined ? [] : [draProcess])].map((p) => p.stop()));
    const codeOf = (p: PluginProcess): string => String(p.child.exitCode ?? p.child.signalCode ?? '?');
    if (plugins.length === 1 && plugins[0]?.name === ALL_IN_ONE) {
      io.write(`Stopped ${ALL_IN_ONE} with SIGTERM (exit code ${codeOf(plugins[0])}).\n`);
    } else if (plugins.length > 0) {
      const codes = plugins.map((p) => `${p.name} ${codeOf(p)}`).join(', ');
      io.write(`Stopped the plugins with SIGTERM (exit codes: ${codes}).\n`);
    }
    if (draProcess !== undefined)
      io.write(
        `Stopped the DRA driver (${draProcess.name}) with SIGTERM (exit code ${codeOf(draProcess)}).\n`,
      );
    await sim?.close();
    await api?.close();
    const dirs = [...new Set([node?.root, base])].filter((dir) => dir !== undefined);
    if (failed) {
      const logFile = base === undefined ? '' : ` (plugin logs: ${join(base, 'plugins.log')})`;
      io.writeError(`kdp-demo: kept ${dirs.join(' and ')} for inspection${logFile}\n`);
    } else if (dirs.length > 0) {
      node?.remove();
      if (base !== node?.root && base !== undefined) rmSync(base, { recursive: true, force: true });
      io.write(`Removed ${dirs.join(' and ')}.\n`);
    }
  }
}

/** A temp dir whose `dp/` is short enough for every plugin's socket path (at most 107 bytes). */
function shortTempDir(): string {
  for (const parent of [tmpdir(), '/tmp']) {
    if (join(parent, 'kdp-XXXXXX', 'dp').length <= MAX_DEVICE_PLUGIN_DIR)
      return mkdtempSync(join(parent, 'kdp-'));
  }
  return mkdtempSync(join(tmpdir(), 'kdp-'));
}

function onProcessSignals(handler: () => void): () => void {
  let count = 0;
  const listener = (): void => {
    count++;
    if (count > 1) process.exit(130);
    handler();
  };
  process.on('SIGINT', listener);
  process.on('SIGTERM', listener);
  return () => {
    process.off('SIGINT', listener);
    process.off('SIGTERM', listener);
  };
}
