import type { DiscoverDocument } from './discover-result';
import { discoverNotes, formatColumns } from './format-discover-table';
import type { ModeDiscoverResult } from './mode-discover';

type Fields = Readonly<Record<string, unknown>>;

const entries = (value: unknown): [string, unknown][] =>
  typeof value === 'object' && value !== null ? Object.entries(value) : [];
const list = (value: unknown): Fields[] => (Array.isArray(value) ? (value as Fields[]) : []);
const quantity = (value: unknown): string => String((value as { value?: unknown } | null)?.value ?? value);
const orDash = (parts: readonly string[]): string => (parts.length > 0 ? parts.join(',') : '-');

/** A device's capacities (`memory=80Gi`), counters consumed (`gpu-0:memory=10Gi`) and taints (`key=value:Effect`). */
function deviceCells(device: Fields): string[] {
  const capacity = entries(device['capacity']).map(([name, cap]) => `${name}=${quantity(cap)}`);
  const counters = list(device['consumesCounters']).flatMap((set) =>
    entries(set['counters']).map(([name, c]) => `${String(set['counterSet'])}:${name}=${quantity(c)}`),
  );
  const taints = list(device['taints']).map(
    (t) =>
      `${String(t['key'])}${t['value'] !== undefined ? `=${String(t['value'])}` : ''}:${String(t['effect'])}`,
  );
  return [orDash(capacity), orDash(counters), orDash(taints)];
}

/**
 * Renders what a serve mode would publish (`discover --mode dra`) for people: one row per device of each pool's
 * slices (driver, pool, slice number, device, attribute count, capacities, counters consumed, taints) and its
 * counter sets, then the
 * excluded candidates and the warnings. Attribute values are left to `--output json`.
 */
export function formatModeDiscoverTable(
  results: readonly ModeDiscoverResult[],
  notes: Pick<DiscoverDocument, 'excluded' | 'warnings'>,
): string {
  const rows: string[][] = [
    ['DRIVER', 'POOL', 'SLICE', 'DEVICE', 'ATTRIBUTES', 'CAPACITY', 'COUNTERS', 'TAINTS'],
  ];
  for (const { driver, pools } of results)
    for (const { pool, slices, counterSets = [] } of pools) {
      slices.forEach((devices, index) => {
        if (devices.length === 0) rows.push([driver, pool, String(index), '(none)', '', '', '', '']);
        for (const device of devices as readonly Fields[])
          rows.push([
            driver,
            pool,
            String(index),
            String(device['name']),
            String(entries(device['attributes']).length),
            ...deviceCells(device),
          ]);
      });
      for (const set of counterSets as readonly Fields[])
        rows.push([
          driver,
          pool,
          '-',
          `(counter set ${String(set['name'])})`,
          '',
          '',
          orDash(entries(set['counters']).map(([name, value]) => `${name}=${quantity(value)}`)),
          '',
        ]);
    }
  return [rows.length > 1 ? formatColumns(rows) : 'no pools\n', ...discoverNotes(notes)].join('\n');
}
