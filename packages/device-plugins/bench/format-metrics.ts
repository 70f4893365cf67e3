/** One figure of a bench, with its target when it has one (at most `target`). */
export interface Metric {
  /** The figure's name in `KDP_BENCH_JSON`, e.g. `gpu.idle_vmrss_mib`. */
  readonly key: string;
  /** What it is, for people. */
  readonly label: string;
  readonly value: number;
  readonly unit: 'ms' | 'MiB';
  readonly target?: number;
}

/** A plain-text table: each figure, its target and `ok` or `MISS`. */
export function formatMetrics(metrics: readonly Metric[]): string {
  const rows = metrics.map((m) => [
    m.label,
    `${m.value.toFixed(m.unit === 'ms' ? 0 : 1)} ${m.unit}`,
    m.target !== undefined ? `≤ ${m.target} ${m.unit}` : '',
    m.target === undefined ? '' : m.value <= m.target ? 'ok' : 'MISS',
  ]);
  const header = ['figure', 'value', 'target', ''];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]?.length ?? 0)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, i) => (i === 0 || i === 3 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return `${[line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n')}\n`;
}
