import type { PluginProcess } from '../spawn-plugin';

/**
 * The URL of a kdp plugin's /metrics, read from its `serving /metrics` log line on stderr (so a test can pass
 * `--metrics-address 127.0.0.1:0`); waits for more output while the line is not there yet, up to `chunks` writes.
 */
export async function metricsUrlOf(plugin: PluginProcess, chunks = 100): Promise<string> {
  for (let waited = 0; waited <= chunks; waited++) {
    for (const line of plugin.stderr().split('\n')) {
      if (!line.includes('serving /metrics')) continue;
      return `${(JSON.parse(line) as { url: string }).url}/metrics`;
    }
    if (plugin.child.exitCode !== null || plugin.child.signalCode !== null) break;
    await Promise.race([new Promise((resolve) => plugin.child.stderr?.once('data', resolve)), plugin.exited]);
  }
  throw new Error(`no metrics URL in the plugin's log:\n${plugin.stderr()}`);
}

/**
 * A kdp plugin's scan counters from /metrics: `kdp_scans_total{plugin, trigger}` as `scans:<trigger>` and
 * `kdp_change_probes_total{plugin, outcome}` as `probes:<outcome>`, for `plugin` (its short name) only.
 */
export async function scanCounts(url: string, plugin: string): Promise<Record<string, number>> {
  const text = await (await fetch(url)).text();
  const counts: Record<string, number> = {};
  for (const [, name, owner, label, value] of text.matchAll(
    /^kdp_(scans|change_probes)_total\{plugin="([^"]*)",(?:trigger|outcome)="([a-z]+)"\} (\d+)$/gm,
  )) {
    if (owner === plugin)
      counts[`${name === 'scans' ? 'scans' : 'probes'}:${label as string}`] = Number(value);
  }
  return counts;
}
