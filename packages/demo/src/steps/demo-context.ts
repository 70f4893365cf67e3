import type { KubeletSim } from '@kdp/kubelet-sim';
import type { LiveView } from '../live-view';
import type { PluginProcess } from '../plugin-processes';
import type { SampleNode } from '../sample-node/create-sample-node';

/** What every demo step works with. */
export interface DemoContext {
  readonly sim: KubeletSim;
  readonly node: SampleNode;
  readonly plugins: readonly PluginProcess[];
  readonly view: LiveView;
  /** The pod holding each device, keyed `<resource> <device ID>`. */
  readonly holders: Map<string, string>;
  /** How long a step waits for the plugins before it fails (ms). */
  readonly timeoutMs: number;
}

/** Milliseconds as the demo prints them. */
export const ms = (value: number): string => `${Math.max(0, Math.round(value))} ms`;

/** The last lines of a plugin's log, indented, for error messages. */
export function logTail(plugin: PluginProcess, lines = 10): string {
  const tail = plugin.logTail().slice(-lines);
  return tail.length === 0 ? '  (it wrote nothing)' : tail.map((line) => `  ${line}`).join('\n');
}
