/** A `pfNames` / `rootDevices` entry: a PF (by name or PCI address) and, optionally, which of its VFs. */
export interface VfRangeSelector {
  /** The PF part before `#` ("ens1f0", "0000:3b:00.0"). */
  readonly target: string;
  /** VF indexes (from `virtfnN`) the entry covers; undefined = every VF of the PF (no `#`). */
  readonly indexes?: ReadonlySet<number>;
}

/** The parse of one entry: the selector, or why the entry is malformed. */
export type VfRangeParse =
  | { readonly ok: true; readonly selector: VfRangeSelector }
  | { readonly ok: false; readonly message: string };

const MAX_VF_INDEX = 65535;

/**
 * Parses the range syntax of sriov-network-device-plugin: `netpf0#0,2-7,9` (0-based VF indexes, inclusive
 * ranges). Upstream logs and skips a malformed entry; here it is reported so the config load can name it.
 */
export function parseVfRange(entry: string): VfRangeParse {
  const hash = entry.indexOf('#');
  if (hash < 0) {
    return entry.trim() === ''
      ? { ok: false, message: 'is empty' }
      : { ok: true, selector: { target: entry.trim() } };
  }
  const target = entry.slice(0, hash).trim();
  if (target === '') return { ok: false, message: `"${entry}" has nothing before "#"` };
  const indexes = new Set<number>();
  for (const part of entry.slice(hash + 1).split(',')) {
    const match = /^\s*(\d{1,5})\s*(?:-\s*(\d{1,5})\s*)?$/.exec(part);
    if (!match) return { ok: false, message: `"${entry}": "${part}" is not a VF index or a range a-b` };
    const first = Number(match[1]);
    const last = match[2] === undefined ? first : Number(match[2]);
    if (last < first) return { ok: false, message: `"${entry}": range ${part.trim()} ends before it starts` };
    if (last > MAX_VF_INDEX) return { ok: false, message: `"${entry}": VF index ${last} is too large` };
    for (let i = first; i <= last; i++) indexes.add(i);
  }
  return { ok: true, selector: { target, indexes } };
}

/** Formats a selector back to the upstream syntax (indexes compressed into ranges). */
export function formatVfRange(selector: VfRangeSelector): string {
  if (selector.indexes === undefined) return selector.target;
  const sorted = [...selector.indexes].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && (sorted[j + 1] as number) === (sorted[j] as number) + 1) j++;
    parts.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return `${selector.target}#${parts.join(',')}`;
}
