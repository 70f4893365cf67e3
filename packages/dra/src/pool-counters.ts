/** A counter set of a pool (KEP 4815 `sharedCounters`): counter name → quantity. */
export interface SliceCounterSet {
  /** A DNS label, unique in the pool. */
  readonly name: string;
  readonly counters: Readonly<Record<string, string | number>>;
}

/** What the counter checks read of a device: its name and what it consumes of its pool's counter sets. */
interface CounterConsumer {
  readonly name: string;
  readonly consumesCounters?:
    readonly { counterSet: string; counters: Readonly<Record<string, string | number>> }[] | undefined;
}

/**
 * `resource.k8s.io/v1` limits of partitionable devices (KEP 4815) as of Kubernetes 1.35 (`pkg/apis/resource/types.go`):
 * counter sets per slice (`ResourceSliceMaxCounterSets`), counters per set (`ResourceSliceMaxCountersPerCounterSet`),
 * counter consumptions per device (`ResourceSliceMaxDeviceCounterConsumptionsPerDevice`), counters per consumption
 * (`ResourceSliceMaxCountersPerDeviceCounterConsumption`) and devices per slice once one of them consumes counters
 * or has taints (`ResourceSliceMaxDevicesWithTaintsOrConsumesCounters`).
 */
export const COUNTER_LIMITS = {
  counterSetsPerSlice: 8,
  countersPerSet: 32,
  consumptionsPerDevice: 2,
  countersPerConsumption: 32,
  devicesPerSliceWithCounters: 64,
} as const;

/** A `resource.k8s.io/v1` `CounterSet` as this package writes it. */
export interface ApiCounterSet {
  name: string;
  counters: Record<string, { value: string }>;
}

const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Counters as the API writes them (`{ value }` quantities), keys sorted; throws over `max` counters. */
export function toApiCounters(
  counters: Readonly<Record<string, string | number>>,
  max: number,
  what: string,
): Record<string, { value: string }> {
  const names = Object.keys(counters).sort(byCodeUnit);
  if (names.length === 0) throw new Error(`${what} has no counters`);
  if (names.length > max) throw new Error(`${what} has ${names.length} counters, more than ${max}`);
  const out: Record<string, { value: string }> = {};
  for (const name of names) out[name] = { value: String(counters[name]) };
  return out;
}

/**
 * A pool's counter sets cut into slices of their own (as Kubernetes 1.35 wants them: a slice holds devices or
 * counter sets, never both), sorted by name and cut every 8; none gives no slice. Throws on a duplicate name,
 * more than 32 counters in a set, or a device consuming from a set or counter the pool lacks, more than 2 sets,
 * one set twice or more than 32 counters of one set.
 */
export function splitCounterSets(
  sets: readonly SliceCounterSet[],
  devices: readonly CounterConsumer[],
): ApiCounterSet[][] {
  const sorted = [...sets].sort((a, b) => byCodeUnit(a.name, b.name));
  const known = new Map<string, ReadonlySet<string>>();
  for (const set of sorted) {
    if (known.has(set.name)) throw new Error(`counter set ${set.name} is listed twice`);
    known.set(set.name, new Set(Object.keys(set.counters)));
  }
  for (const device of devices) checkConsumption(device, known);
  const api = sorted.map((set) => ({
    name: set.name,
    counters: toApiCounters(set.counters, COUNTER_LIMITS.countersPerSet, `counter set ${set.name}`),
  }));
  const slices: ApiCounterSet[][] = [];
  for (let i = 0; i < api.length; i += COUNTER_LIMITS.counterSetsPerSlice)
    slices.push(api.slice(i, i + COUNTER_LIMITS.counterSetsPerSlice));
  return slices;
}

/** Throws when a device consumes what its pool's counter sets (`known`: set → counter names) do not offer. */
function checkConsumption(device: CounterConsumer, known: ReadonlyMap<string, ReadonlySet<string>>): void {
  const uses = device.consumesCounters ?? [];
  if (uses.length > COUNTER_LIMITS.consumptionsPerDevice)
    throw new Error(
      `device ${device.name} consumes from ${uses.length} counter sets, more than ${COUNTER_LIMITS.consumptionsPerDevice}`,
    );
  const seen = new Set<string>();
  for (const use of uses) {
    if (seen.has(use.counterSet))
      throw new Error(`device ${device.name} consumes from counter set ${use.counterSet} twice`);
    seen.add(use.counterSet);
    const counters = known.get(use.counterSet);
    if (counters === undefined)
      throw new Error(
        `device ${device.name} consumes from counter set ${use.counterSet}, which the pool lacks`,
      );
    for (const name of Object.keys(use.counters))
      if (!counters.has(name))
        throw new Error(
          `device ${device.name} consumes counter ${name}, which counter set ${use.counterSet} lacks`,
        );
  }
}
