import type { KubeletSim } from '@kdp/kubelet-sim';
import type { LiveView } from '../live-view';
import type { PluginName } from '../plugin-names';
import type { PluginLogs } from '../plugin-logs';
import type { PluginProcess } from '../plugin-processes';
import type { SampleNode } from '../sample-node/create-sample-node';

/** What every demo step works with. */
export interface DemoContext {
  readonly sim: KubeletSim;
  readonly node: SampleNode;
  /** The running processes: one per plugin, or one `kdp-device-plugins` hosting all five. */
  readonly plugins: readonly PluginProcess[];
  /** The plugins' JSON log lines as they come. */
  readonly logs: PluginLogs;
  readonly view: LiveView;
  /** The pod holding each device, keyed `<resource> <device ID>`. */
  readonly holders: Map<string, string>;
  /** How long a step waits for the plugins before it fails (ms). */
  readonly timeoutMs: number;
}

/** Milliseconds as the demo prints them. */
export const ms = (value: number): string => `${Math.max(0, Math.round(value))} ms`;

/** The process running a plugin. */
export function processOf(ctx: DemoContext, plugin: PluginName): PluginProcess {
  const found = ctx.plugins.find((p) => p.plugins.includes(plugin));
  if (found === undefined) throw new Error(`no process runs the ${plugin} plugin`);
  return found;
}

/** The last lines of a plugin's log (of its process, without the other plugins' lines), indented, for errors. */
export function logTail(process: PluginProcess, plugin?: PluginName, lines = 10): string {
  const tail = process.logTail(plugin).slice(-lines);
  return tail.length === 0 ? '  (it wrote nothing)' : tail.map((line) => `  ${line}`).join('\n');
}
