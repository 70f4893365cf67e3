import { formatConfigIssues } from '../config/config-error';
import type { Program } from './command-line';
import type { CommonFlags } from './common-flags';
import { discoverPlugin } from './discover-plugin';
import { toDiscoverDocument, type DiscoverResult } from './discover-result';
import { formatDiscoverTable } from './format-discover-table';
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
}

/**
 * `discover`: every plugin's configuration loaded once and one scan, printed as a table or as one JSON document
 * with the running configuration (converted from an anchor's format where it was one).
 */
export async function runDiscover(options: RunDiscoverOptions): Promise<void> {
  const { process } = options;
  const results: DiscoverResult[] = [];
  const configWarnings: string[] = [];
  const configValues: Record<string, unknown> = {};
  for (const invocation of options.plugins) {
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
  options.stdout.write(
    options.output === 'json' ? `${JSON.stringify({ ...doc, config }, null, 2)}\n` : formatDiscoverTable(doc),
  );
}
