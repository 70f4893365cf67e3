import type { PluginBenchResult } from './run-plugin-bench';

/** The bench's targets on a 2-core machine (issue 20): idle CPU and RSS; latency targets are per step. */
export const PLUGIN_BENCH_TARGETS = { idleCpuPercent: 1, rssMiB: 100 } as const;

/** Left-aligned columns separated by two spaces; the last column is not padded. */
function layout(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}

const verdict = (ok: boolean): string => (ok ? 'ok' : 'MISSED');
const ms = (value: number): string => `${value < 10 ? value.toFixed(1) : Math.round(value)} ms`;
const seconds = (value: number): string => `${Number((value / 1000).toFixed(1))} s`;

/**
 * The result as a plain-text table: the title and environment, start → ready, idle CPU (% of one core and
 * ticks), RSS, then p50 / p99 / max per change kind, each next to its target and whether it was met.
 */
export function formatPluginBench(r: PluginBenchResult): string {
  const { idleCpuPercent, rssMiB } = PLUGIN_BENCH_TARGETS;
  const summary = layout([
    ['', 'MEASURED', 'TARGET', ''],
    ['start → ready', ms(r.startMs), '', ''],
    [
      `idle CPU over ${seconds(r.idleMs)}`,
      `${r.idleCpuPercent.toFixed(2)} % of a core (${r.idleTicks} ticks at ${r.ticksPerSecond}/s)`,
      `< ${idleCpuPercent} %`,
      verdict(r.idleCpuPercent < idleCpuPercent),
    ],
    ['RSS after idle', `${r.rssMiB.toFixed(1)} MiB`, `< ${rssMiB} MiB`, verdict(r.rssMiB < rssMiB)],
  ]);
  const latencies = layout([
    ['CHANGE → KUBELET', 'N', 'P50', 'P99', 'MAX', 'TARGET P99', ''],
    ...r.latencies.map((l) => [
      l.kind,
      String(l.count),
      ms(l.p50Ms),
      ms(l.p99Ms),
      ms(l.maxMs),
      `< ${l.targetMs} ms`,
      verdict(l.p99Ms < l.targetMs),
    ]),
  ]);
  const head = `${r.title}\n${r.environment}; ${r.rounds} rounds per change kind`;
  return `${[head, '', ...summary, '', ...latencies].join('\n')}\n`;
}
