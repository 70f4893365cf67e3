// Shared by the DRA benches: percentiles, a plain-text table, targets, short mode and the JSON figures.
import { writeFileSync } from 'node:fs';

/** `KDP_BENCH_SHORT=1`: a few seconds in all, for the CI regression check (fewer samples, same figures). */
export const SHORT = process.env['KDP_BENCH_SHORT'] === '1';

/** The `p` quantile (0–1) of `values`, nearest rank; NaN for none. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
}

/** A figure next to its target: `≤ 150 ms ok` or `≤ 150 ms MISS`; '' without a target. */
export function verdict(ms: number, target: number | undefined): string {
  if (target === undefined) return '';
  return `≤ ${target} ms ${ms <= target ? 'ok' : 'MISS'}`;
}

/** A table with a header and a rule: the first column left-aligned, the others right-aligned. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** `KDP_BENCH_JSON=FILE`: writes `{ "<metric>": <ms>, … }` there (figures rounded to 0.01 ms). */
export function writeFigures(figures: Readonly<Record<string, number>>): void {
  const file = process.env['KDP_BENCH_JSON'];
  if (file === undefined || file === '') return;
  const rounded = Object.fromEntries(
    Object.entries(figures).map(([name, ms]) => [name, Math.round(ms * 100) / 100]),
  );
  writeFileSync(file, `${JSON.stringify(rounded, null, 2)}\n`);
}
