import { createKubeletSim, type DraPlayground, type KubeletSim } from '@kdp/kubelet-sim';
import { DEMO_USAGE, parseDemoArgs } from './demo-args';
import { demoIntro } from './demo-intro';
import { createDemoLayout, demoBase } from './demo-layout';
import { renderDeviceTable } from './device-table';
import { createLiveView } from './live-view';
import { onProcessSignals } from './on-process-signals';
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
import { startDemoPlayground } from './start-demo-playground';
import { stopDemo } from './stop-demo';

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

/** The DRA playground node's name in its API server (ResourceSlices, claim allocations). */
const DRA_NODE = 'kdp-demo-node';
/** The DRA driver of {@link DRA_PLUGIN}. */
const DRA_DRIVER = `${DRA_PLUGIN}.kdp.dev`;

/**
 * The demo: a sample node in a temp dir, kubelet-sim in-process, the five plugin binaries as processes (or
 * `kdp-device-plugins` running all five in one, with `--all-in-one`), and the USB plugin once more through DRA
 * (`--mode dra`, against kubelet-sim's DRA playground: API server, scheduler, kubelet); then registration, the
 * live table, a sample pod per resource, a failing and recovering GPU, the USB devices' ResourceSlices and a
 * pod whose ResourceClaim the scheduler allocated by CEL and the kubelet prepared, and a kubelet restart.
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
  let playground: DraPlayground | undefined;
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
    base = demoBase(node);
    const { paths, dra } = createDemoLayout(base, DRA_NODE);
    view.log(
      ...demoIntro(node.root, paths, args.allInOne, { driver: DRA_DRIVER, kubeconfig: dra.kubeconfig }),
    );
    playground = await startDemoPlayground({ base, dra, cdiDir: paths.cdiDir, devRoot: node.devRoot });
    sim = await createKubeletSim({ dir: paths.devicePluginDir });
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
    const draNode = playground.nodes[0];
    if (draNode === undefined) throw new Error('the DRA playground started no node');
    const draSide: DraSide = {
      store: playground.store,
      sim: draNode.sim,
      kubelet: draNode.kubelet,
      kubeconfig: dra.kubeconfig,
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
      `4/5 The ${DRA_PLUGIN} devices through Dynamic Resource Allocation: ResourceSlices, a claim the scheduler allocates, a pod with its CDI devices`,
    );
    await guard(serveThroughDra(ctx, draSide));
    view.log(
      '',
      '5/5 Restarting the kubelet: every plugin must notice and register again; the DRA driver publishes again',
    );
    const draBack = followDraRestart(ctx, draSide);
    await guard(Promise.all([restartKubelet(ctx), draSide.sim.restart()]));
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
    await stopDemo({ plugins, draProcess, sim, playground, node, base, failed }, io);
  }
}
