import { percentile } from '@kdp/kubelet-sim/testing';
import { SOAK_KINDS, type SoakResult, type UsageSample } from './soak';

/** `1.2 s`, `85 ms`, or `-` for none. */
const ms = (value: number | undefined): string => {
  if (value === undefined || Number.isNaN(value)) return '-';
  return value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${Math.round(value)} ms`;
};

/** `9m 12s`. */
export const duration = (value: number): string => {
  const seconds = Math.round(value / 1000);
  return seconds >= 60 ? `${Math.floor(seconds / 60)}m ${seconds % 60}s` : `${seconds}s`;
};

/** Left-aligned columns separated by two spaces. */
export function table(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) =>
    row
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd(),
  );
}

/** p50, p99 and max of a list of times. */
export const spread = (values: readonly number[]): string[] => {
  const sorted = [...values].sort((a, b) => a - b);
  return [ms(percentile(sorted, 50)), ms(percentile(sorted, 99)), ms(sorted.at(-1))];
};

/** `p50 1 ms, p99 2 ms, max 3 ms`. */
const labelled = ([p50, p99, max]: readonly string[]): string => `p50 ${p50}, p99 ${p99}, max ${max}`;

/** `f` of each quarter of `samples` after the first (its start), joined: `40, 40, 40, 40`. */
function quarters(samples: readonly UsageSample[], f: (part: readonly UsageSample[]) => string): string {
  const after = samples.slice(1);
  return [0, 1, 2, 3]
    .map((q) => after.slice(Math.floor((after.length * q) / 4), Math.floor((after.length * (q + 1)) / 4)))
    .map((part) => (part.length === 0 ? '-' : f(part)))
    .join(', ');
}

/** The long-lived stretch: the last process's samples (since the last SIGKILL restart). */
function lastGeneration(usage: readonly UsageSample[]): UsageSample[] {
  const generation = usage.at(-1)?.generation;
  return usage.filter((sample) => sample.generation === generation);
}

const mib = (value: number | undefined): string => (value === undefined ? '-' : value.toFixed(1));

const usageRow = (label: string, sample: UsageSample | undefined): string[] =>
  sample === undefined
    ? [label, '-', '-', '-', '-', '-', '-']
    : [
        label,
        String(sample.cycle),
        mib(sample.rssMiB),
        mib(sample.heapMiB),
        mib(sample.afterGcMiB),
        String(sample.fullGcs),
        String(sample.fds),
      ];

/** The soak's table: counts, times to recover, failures, and the process's RSS and fds over the run. */
export function formatSoakReport(result: SoakResult): string {
  const all = SOAK_KINDS.flatMap((kind) => result.kinds[kind].recoverMs);
  const stopped =
    result.stoppedBy === 'count'
      ? ''
      : result.stoppedBy === 'time'
        ? ` — stopped by --max-minutes after ${result.cycles} of ${result.requestedCycles}`
        : ` — stopped after cycle ${result.cycles}: a registration did not come back even in a fresh process`;
  const examples = Object.entries(result.allocations.examples).map(
    ([label, message]) => `e.g. ${label}: ${message.length > 160 ? `${message.slice(0, 160)}…` : message}`,
  );
  const lines = [
    `kdp-device-plugins chaos soak: ${result.cycles} cycles, seed ${result.seed}, ${duration(result.wallMs)}${stopped}`,
    '',
    ...table([
      ['kind', 'cycles', 'recover p50', 'p99', 'max'],
      ...SOAK_KINDS.map((kind) => [
        kind,
        String(result.kinds[kind].count),
        ...spread(result.kinds[kind].recoverMs),
      ]),
      ['all', String(result.cycles), ...spread(all)],
    ]),
    '',
    `variants: ${Object.entries(result.variants)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, count]) => `${name} ${count}`)
      .join(', ')}`,
    `hot-plug, unplug → the kubelet sees it: ${labelled(spread(result.unplugSeenMs))}`,
    '',
    ...table([
      ['registrations lost (not back within the bound)', String(result.lost.length)],
      ['crashes (exits nobody asked for)', String(result.crashes.length)],
      ['changes missed (unplug unseen, reload failed or unseen)', String(result.missed.length)],
      ['allocations admitted', String(result.allocations.admitted)],
      ...Object.entries(result.allocations.expected).map(([label, count]) => [
        `allocate errors expected (racing a fault): ${label}`,
        String(count),
      ]),
      ['allocate errors unexpected', String(result.allocations.unexpected.length)],
      [
        'exit after the final SIGTERM',
        result.finalExit === undefined ? '-' : String(result.finalExit.code ?? result.finalExit.signal),
      ],
    ]),
    '',
    ...(examples.length > 0 ? [...examples, ''] : []),
    ...usageTable(result.usage),
  ];
  for (const loss of result.lost) lines.push(`LOST cycle ${loss.cycle} (${loss.variant}): ${loss.state}`);
  for (const crash of result.crashes)
    lines.push(
      `CRASH cycle ${crash.cycle} (process ${crash.generation}): exit ${crash.code ?? crash.signal}\n  ${crash.tail.slice(-5).join('\n  ')}`,
    );
  for (const miss of result.missed) lines.push(`MISSED ${miss}`);
  for (const error of result.allocations.unexpected.slice(0, 20))
    lines.push(`ALLOCATE cycle ${error.cycle} (${error.variant}) ${error.resource}: ${error.message}`);
  return `${lines.join('\n')}\n`;
}

/**
 * RSS, heap and fds: the first process once registered, and the long-lived last process (the second half of a soak
 * has no SIGKILL) at its start, each quarter and its end, with its ranges over all samples.
 */
function usageTable(usage: readonly UsageSample[]): string[] {
  const last = lastGeneration(usage);
  const generations = new Set(usage.map((sample) => sample.generation)).size;
  const fds = usage.map((sample) => sample.fds);
  const lastFds = last.map((sample) => sample.fds);
  const lastRss = last.map((sample) => sample.rssMiB);
  const at = (fraction: number): UsageSample | undefined => last[Math.round((last.length - 1) * fraction)];
  return [
    ...table([
      ['plugin process', 'after cycle', 'RSS MiB', 'heap MiB', 'after full GC MiB', 'full GCs', 'open fds'],
      usageRow('first process, registered', usage[0]),
      usageRow(`last process (${last.length - 1} cycles), start`, last[0]),
      usageRow('last process, 1/4', at(0.25)),
      usageRow('last process, middle', at(0.5)),
      usageRow('last process, 3/4', at(0.75)),
      usageRow('last process, end', last.at(-1)),
    ]),
    `last process: RSS ${Math.min(...lastRss).toFixed(1)}–${Math.max(...lastRss).toFixed(1)} MiB, fds ${Math.min(...lastFds)}–${Math.max(...lastFds)}, ` +
      `fewest fds per quarter ${quarters(last, (part) => String(Math.min(...part.map((sample) => sample.fds))))}; ` +
      `all ${generations} processes: fds ${Math.min(...fds)}–${Math.max(...fds)}`,
  ];
}
