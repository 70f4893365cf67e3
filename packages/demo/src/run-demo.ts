import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKubeletSim, type KubeletSim } from '@kdp/kubelet-sim';
import { DEMO_USAGE, parseDemoArgs } from './demo-args';
import { renderDeviceTable } from './device-table';
import { createLiveView } from './live-view';
import { now, startPlugins, type PluginProcess } from './plugin-processes';
import { createSampleNode } from './sample-node/create-sample-node';
import { admitSamplePods } from './steps/admit-sample-pods';
import { logTail, ms, type DemoContext } from './steps/demo-context';
import { failAndRecover } from './steps/fail-and-recover';
import { restartKubelet } from './steps/restart-kubelet';
import { waitForRegistration } from './steps/wait-for-registration';

/** Where the demo writes and what it runs. */
export interface DemoIo {
  readonly write: (text: string) => void;
  readonly writeError: (text: string) => void;
  /** Whether stdout is a terminal (live table redrawn in place). */
  readonly tty: boolean;
  /** The terminal's width, when it is one. */
  readonly columns?: () => number | undefined;
  /** Folder holding `plugin-<name>/dist/main.js`. */
  readonly packagesDir: string;
  /** Registers what Ctrl-C (SIGINT/SIGTERM) does; returns the unregistration. Default: process signals. */
  readonly onInterrupt?: (handler: () => void) => () => void;
  /** How long each step waits for the plugins (ms); default 30 000. */
  readonly timeoutMs?: number;
}

class Interrupted extends Error {}

/** The socket of the longest resource name (the FPGA's af- name) must fit in 107 bytes under `<dir>/dp`. */
const MAX_DEVICE_PLUGIN_DIR = 23;

/**
 * The demo: a sample node in a temp dir, kubelet-sim in-process, the five plugin binaries as processes; then
 * registration, the live table, a sample pod per resource, a failing and recovering GPU, and a kubelet restart.
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
  const base = shortTempDir();
  const paths = {
    nodeRoot: join(base, 'node'),
    devicePluginDir: join(base, 'dp'),
    cdiDir: join(base, 'cdi'),
    devinfoDir: join(base, 'devinfo'),
    logFile: join(base, 'plugins.log'),
  };
  const holders = new Map<string, string>();
  let sim: KubeletSim | undefined;
  let plugins: PluginProcess[] = [];
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
    view.log('kdp demo: kubelet-sim and the five kdp device plugins on a sample node', '');
    const node = createSampleNode({ root: paths.nodeRoot });
    expected = node.expected;
    for (const dir of [paths.cdiDir, paths.devinfoDir]) mkdirSync(dir, { recursive: true });
    view.log(
      `  node     ${paths.nodeRoot}  (sys, proc, dev; plugin configs in config/)`,
      '           2 NUMA nodes: 2× NVIDIA H100, AMD MI210, Intel E810 with 6 VFs, 2× ConnectX-6 (InfiniBand),',
      '           Intel FPGA (DFL), 6 USB devices (2 FTDI serial, webcam, Zigbee stick, hub, keyboard)',
      `  kubelet  ${join(paths.devicePluginDir, 'kubelet.sock')}  (kubelet-sim, in this process)`,
      `  logs     ${paths.logFile}`,
      '',
    );
    sim = await createKubeletSim({ dir: paths.devicePluginDir });
    sim.events.on('event', () => view.refresh());
    plugins = startPlugins({
      node,
      packagesDir: io.packagesDir,
      devicePluginDir: paths.devicePluginDir,
      cdiDir: paths.cdiDir,
      devinfoDir: paths.devinfoDir,
      logFile: paths.logFile,
      onError: (plugin, message) => view.log(`  ! [${plugin}] ${message}`),
      onExit: (plugin, code, signal) => {
        if (stopping) return;
        const process = plugins.find((p) => p.name === plugin);
        const how = signal !== null ? `on ${signal}` : `with code ${code}`;
        abort(
          new Error(
            `the ${plugin} plugin exited ${how}; the last lines of its log:\n${process ? logTail(process) : ''}`,
          ),
        );
      },
    });
    const ctx: DemoContext = { sim, node, plugins, view, holders, timeoutMs };

    view.log('1/4 Starting the plugins: each serves its socket, registers, and lists its devices');
    await guard(waitForRegistration(ctx));
    view.snapshot('devices as kubelet-sim sees them');
    view.log('', '2/4 Admitting a sample pod per resource: what each container receives');
    await guard(admitSamplePods(ctx));
    view.log('', `3/4 A device fails and recovers`);
    await guard(failAndRecover(ctx));
    view.log('', '4/4 Restarting the kubelet: every plugin must notice and register again');
    await guard(restartKubelet(ctx));
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
    await Promise.all(plugins.map((p) => p.stop()));
    if (plugins.length > 0) {
      const codes = plugins
        .map((p) => `${p.name} ${p.child.exitCode ?? p.child.signalCode ?? '?'}`)
        .join(', ');
      io.write(`Stopped the plugins with SIGTERM (exit codes: ${codes}).\n`);
    }
    await sim?.close();
    if (failed) {
      io.writeError(`kdp-demo: kept ${base} for inspection (plugin logs: ${paths.logFile})\n`);
    } else {
      rmSync(base, { recursive: true, force: true });
      io.write(`Removed ${base}.\n`);
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
