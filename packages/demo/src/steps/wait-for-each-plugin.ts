import type { PluginName } from '../plugin-names';
import type { PluginProcess } from '../plugin-processes';
import type { ExpectedResource } from '../sample-node/sample-configs';
import { waitUntil } from '../wait-until';
import { logTail, processOf, type DemoContext } from './demo-context';

/** What {@link waitForEachPlugin} waits for and prints. */
export interface PluginWait {
  /** Whether one resource is where it should be. */
  readonly ready: (expected: ExpectedResource) => boolean;
  /** What the plugin failed to do, for the error: `did not register`. */
  readonly failure: string;
  /** The line printed once every resource of the plugin is ready. */
  readonly report: (process: PluginProcess, expected: readonly ExpectedResource[]) => string;
}

/**
 * Waits, for every plugin at once, until each of its expected resources is ready, printing one line per plugin
 * as it gets there; fails naming the first plugin that does not within the timeout and the tail of its log.
 */
export async function waitForEachPlugin(ctx: DemoContext, wait: PluginWait): Promise<void> {
  const plugins = [...new Set(ctx.node.expected.map((e) => e.plugin))];
  await Promise.all(
    plugins.map(async (plugin: PluginName) => {
      const process = processOf(ctx, plugin);
      const expected = ctx.node.expected.filter((e) => e.plugin === plugin);
      const missing = (): string[] => expected.filter((e) => !wait.ready(e)).map((e) => e.resource);
      await waitUntil(
        ctx.sim,
        () => (missing().length === 0 ? true : undefined),
        ctx.timeoutMs,
        () =>
          `the ${plugin} plugin ${wait.failure} ${missing().join(', ')} within ${ctx.timeoutMs / 1000} s; ` +
          `the last lines of its log:\n${logTail(process, plugin)}`,
      );
      ctx.view.log(`  ${plugin.padEnd(10)} ${wait.report(process, expected)}`);
    }),
  );
}
