import { formatConfigIssues } from '../config/config-error';
import { hostname } from 'node:os';
import type { ChosenMode, Program } from './command-line';
import type { CommonFlags } from './common-flags';
import { discoverPlugin } from './discover-plugin';
import { toDiscoverDocument, type DiscoverResult } from './discover-result';
import { formatDiscoverTable } from './format-discover-table';
import { formatModeDiscoverTable } from './format-mode-discover-table';
import type { ModeDiscoverResource, ModeDiscoverResult } from './mode-discover';
import { loadPluginConfig, type ConfiguredPlugin } from './plugin-config';
import type { PluginProcess } from './plugin-process';
import type { TextSink } from './run-io';

/** What `discover` is run with. */
export interface RunDiscoverOptions {
  readonly program: Program;
  readonly common: CommonFlags;
  readonly plugins: readonly ConfiguredPlugin[];
  readonly output: 'json' | 'table';
  readonly process: PluginProcess;
  readonly stdout: TextSink;
  /** `--mode`: another than `device-plugin` prints what that mode would publish (its `discover`). */
  readonly mode?: ChosenMode | undefined;
  /** `--node-name`, else `$NODE_NAME` (the mode's pools are the node's); default the host name. */
  readonly nodeName?: string | undefined;
}

/**
 * `discover`: every plugin's configuration loaded once and one scan, printed as a table or as one JSON document
 * with the running configuration (converted from an anchor's format where it was one). With a `--mode` that has
 * a `discover` (dra), what that mode would publish instead of the device-plugin view: `{ mode, drivers: [{ driver,
 * pools: [{ resourceName, pool, slices }] }], excluded, warnings, config }`.
 */
export async function runDiscover(options: RunDiscoverOptions): Promise<void> {
  const { process } = options;
  const results: DiscoverResult[] = [];
  const configWarnings: string[] = [];
  const configValues: Record<string, unknown> = {};
  const modeDiscover = options.mode?.serveMode.discover?.bind(options.mode.serveMode);
  const published: ModeDiscoverResult[] = [];
  for (const invocation of options.plugins) {
    const resources: ModeDiscoverResource[] = [];
    const { value, warnings } = await loadPluginConfig(invocation);
    configValues[invocation.definition.name] = value;
    configWarnings.push(...warnings.map((w) => formatConfigIssues(invocation.configFile ?? '', [w])));
    results.push(
      await discoverPlugin({
        definition: invocation.definition,
        flags: invocation.flags,
        host: process.host,
        cdiDir: options.common.cdiDir,
        config: value,
        logger: process.loggerOf(invocation.definition),
        clock: process.clock,
        signal: process.signal,
        onResource: (resource) => resources.push(resource),
      }),
    );
    if (modeDiscover !== undefined)
      published.push(
        modeDiscover({
          definition: invocation.definition,
          nodeName: options.nodeName ?? hostname(),
          resources,
          clock: process.clock,
          logger: process.loggerOf(invocation.definition),
        }),
      );
  }
  const doc = toDiscoverDocument(
    {
      resources: results.flatMap((result) => result.resources),
      excluded: results.flatMap((result) => result.excluded ?? []),
      warnings: results.flatMap((result) => result.warnings ?? []),
    },
    configWarnings,
  );
  // The running configuration (one plugin: itself).
  const config = options.program.multi ? configValues : Object.values(configValues)[0];
  if (modeDiscover !== undefined) {
    const { excluded, warnings } = doc;
    const mode = options.mode?.name;
    options.stdout.write(
      options.output === 'json'
        ? `${JSON.stringify({ mode, drivers: published, excluded, warnings, config }, null, 2)}\n`
        : formatModeDiscoverTable(published, doc),
    );
    return;
  }
  options.stdout.write(
    options.output === 'json' ? `${JSON.stringify({ ...doc, config }, null, 2)}\n` : formatDiscoverTable(doc),
  );
}
