import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { DraPlayground, KubeletSim } from '@kdp/kubelet-sim';
import { ALL_IN_ONE, type PluginProcess } from './plugin-processes';
import type { SampleNode } from './sample-node/create-sample-node';

/** What a demo run started, as far as it got. */
export interface DemoRun {
  readonly plugins: readonly PluginProcess[];
  readonly draProcess: PluginProcess | undefined;
  readonly sim: KubeletSim | undefined;
  readonly playground: DraPlayground | undefined;
  readonly node: SampleNode | undefined;
  /** The demo's directory (see `DemoLayout`), once laid out. */
  readonly base: string | undefined;
  /** A step failed: the directories are kept for inspection. */
  readonly failed: boolean;
}

/** Where {@link stopDemo} reports. */
export interface DemoOutput {
  readonly write: (text: string) => void;
  readonly writeError: (text: string) => void;
}

/**
 * Stops every process with SIGTERM and reports their exit codes, closes kubelet-sim and the DRA playground, then
 * removes the demo's directories (or, after a failure, says where they were kept).
 */
export async function stopDemo(run: DemoRun, io: DemoOutput): Promise<void> {
  const { plugins, draProcess, node, base } = run;
  await Promise.all([...plugins, ...(draProcess === undefined ? [] : [draProcess])].map((p) => p.stop()));
  const codeOf = (p: PluginProcess): string => String(p.child.exitCode ?? p.child.signalCode ?? '?');
  if (plugins.length === 1 && plugins[0]?.name === ALL_IN_ONE) {
    io.write(`Stopped ${ALL_IN_ONE} with SIGTERM (exit code ${codeOf(plugins[0])}).\n`);
  } else if (plugins.length > 0) {
    const codes = plugins.map((p) => `${p.name} ${codeOf(p)}`).join(', ');
    io.write(`Stopped the plugins with SIGTERM (exit codes: ${codes}).\n`);
  }
  if (draProcess !== undefined)
    io.write(`Stopped the DRA driver (${draProcess.name}) with SIGTERM (exit code ${codeOf(draProcess)}).\n`);
  await run.sim?.close();
  await run.playground?.close();
  const dirs = [...new Set([node?.root, base])].filter((dir) => dir !== undefined);
  if (run.failed) {
    const logFile = base === undefined ? '' : ` (plugin logs: ${join(base, 'plugins.log')})`;
    io.writeError(`kdp-demo: kept ${dirs.join(' and ')} for inspection${logFile}\n`);
  } else if (dirs.length > 0) {
    node?.remove();
    if (base !== node?.root && base !== undefined) rmSync(base, { recursive: true, force: true });
    io.write(`Removed ${dirs.join(' and ')}.\n`);
  }
}
