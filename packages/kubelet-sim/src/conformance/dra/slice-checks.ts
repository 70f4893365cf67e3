import {
  ResourceSliceMaxDevices,
  ResourceSliceMaxDevicesWithAdvancedFeatures,
  validateResourceSlice,
} from '../../api-server/validation';
import { checkResult } from '../check-catalog';
import type { ConformanceCheck } from '../conformance-check';
import type { ApiObject } from './dra-check-api';
import { draCheckCatalog } from './dra-check-catalog';
import { poolCounterProblems } from './pool-counter-problems';

/** A device of the newest generation of its pool, as the scheduler would see it. */
export interface PublishedDevice {
  readonly pool: string;
  readonly device: string;
  readonly attributes: Readonly<Record<string, unknown>>;
}

/** The standard attribute of a device's PCI address. */
export const pciBusIdAttribute = 'resource.kubernetes.io/pciBusID';
/** The standard attribute of a device's PCIe root complex. */
export const pcieRootAttribute = 'resource.kubernetes.io/pcieRoot';

const pciAddress = /^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/i;

interface Pool {
  readonly name: string;
  readonly generation: number;
  /** Slices of the newest generation. */
  readonly slices: ApiObject[];
  readonly counts: Set<number>;
}

const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const specOf = (slice: ApiObject): Record<string, unknown> => record(slice['spec']);
const devicesOf = (slice: ApiObject): Record<string, unknown>[] => list(specOf(slice)['devices']).map(record);
const sliceName = (slice: ApiObject): string => slice.metadata.name ?? '(unnamed)';

/** Groups slices by pool, keeping the newest generation of each. */
function poolsOf(slices: readonly ApiObject[]): Pool[] {
  const pools = new Map<string, Pool>();
  for (const slice of slices) {
    const pool = record(specOf(slice)['pool']);
    const name = String(pool['name'] ?? '');
    const generation = typeof pool['generation'] === 'number' ? pool['generation'] : 0;
    const count = typeof pool['resourceSliceCount'] === 'number' ? pool['resourceSliceCount'] : 0;
    const known = pools.get(name);
    if (known === undefined || generation > known.generation) {
      pools.set(name, { name, generation, slices: [slice], counts: new Set([count]) });
    } else if (generation === known.generation) {
      known.slices.push(slice);
      known.counts.add(count);
    }
  }
  return [...pools.values()];
}

/** Whether `slices` is non-empty and every pool's newest generation has all its `resourceSliceCount` slices. */
export function poolsComplete(slices: readonly ApiObject[]): boolean {
  const pools = poolsOf(slices);
  return pools.length > 0 && pools.every((p) => p.counts.size === 1 && p.slices.length === [...p.counts][0]);
}

/** The devices of each pool's newest generation, in slice order. */
export function publishedDevices(slices: readonly ApiObject[]): PublishedDevice[] {
  return poolsOf(slices).flatMap((pool) =>
    pool.slices.flatMap((slice) =>
      devicesOf(slice).map((d) => ({
        pool: pool.name,
        device: String(d['name'] ?? ''),
        attributes: record(d['attributes']),
      })),
    ),
  );
}

/**
 * Whether a device says it is a PCI device: the standard attribute, or an attribute named for its own PCI address
 * (`pciAddress`, `pciBusID`) holding one. Other attributes whose value looks like a PCI address (a USB device's
 * host controller) do not count.
 */
function hasPciAddress(device: PublishedDevice): boolean {
  return Object.entries(device.attributes).some(
    ([name, value]) =>
      name === pciBusIdAttribute ||
      (/pci(bus)?(id|address)$/i.test(name.split('/').pop() ?? '') &&
        pciAddress.test(String(record(value)['string'] ?? ''))),
  );
}

/**
 * The publication checks of the slices of this node and driver (`slices-valid`, `pool-consistent`,
 * `slice-size`, `slice-owner`, `standard-attributes`); `nodeUid` is the Node's UID when it could be read.
 */
export function checkSlices(
  slices: readonly ApiObject[],
  expected: { readonly driver: string; readonly node: string; readonly nodeUid?: string },
): ConformanceCheck[] {
  const { slicesValid, poolConsistent, sliceSize, sliceOwner, standardAttributes } = draCheckCatalog;
  const checks: ConformanceCheck[] = [];

  const invalid: string[] = [];
  const oversized: string[] = [];
  for (const slice of slices) {
    const spec = specOf(slice);
    const devices = devicesOf(slice);
    const advanced = devices.some(
      (d) => list(d['taints']).length > 0 || list(d['consumesCounters']).length > 0,
    );
    const max = advanced ? ResourceSliceMaxDevicesWithAdvancedFeatures : ResourceSliceMaxDevices;
    if (devices.length > max)
      oversized.push(`${sliceName(slice)} has ${devices.length} devices (limit ${max})`);
    const causes = validateResourceSlice(slice as Record<string, unknown>).filter(
      (c) => !(c.field === 'spec.devices' && c.reason === 'FieldValueTooMany'),
    );
    const problems = causes.map((c) => `${c.field}: ${c.message}`);
    if (spec['driver'] !== expected.driver) problems.push(`spec.driver is ${JSON.stringify(spec['driver'])}`);
    if (spec['nodeName'] !== expected.node)
      problems.push(`spec.nodeName is ${JSON.stringify(spec['nodeName'])}`);
    if (problems.length > 0) invalid.push(`${sliceName(slice)}: ${problems.join('; ')}`);
  }
  checks.push(
    invalid.length === 0
      ? checkResult(slicesValid, 'pass', `${slices.length} slice(s) valid`)
      : checkResult(
          slicesValid,
          'fail',
          `${invalid.join(' | ')}; the API server refuses such a slice (422) or the scheduler cannot use it`,
        ),
  );

  const pools = poolsOf(slices);
  const poolProblems: string[] = [];
  for (const pool of pools) {
    const counts = [...pool.counts];
    if (counts.length > 1) {
      poolProblems.push(
        `pool ${pool.name} generation ${pool.generation}: resourceSliceCount differs (${counts.join(', ')})`,
      );
    } else if (pool.slices.length !== counts[0]) {
      poolProblems.push(
        `pool ${pool.name} generation ${pool.generation}: ${pool.slices.length} slice(s), resourceSliceCount ${counts[0]}`,
      );
    }
    const seen = new Set<string>();
    for (const device of pool.slices.flatMap(devicesOf)) {
      const name = String(device['name'] ?? '');
      if (seen.has(name)) poolProblems.push(`pool ${pool.name}: device ${name} listed twice`);
      seen.add(name);
    }
    poolProblems.push(...poolCounterProblems(pool.name, pool.slices));
  }
  checks.push(
    poolProblems.length === 0
      ? checkResult(
          poolConsistent,
          'pass',
          pools
            .map((p) => `pool ${p.name} generation ${p.generation}: ${p.slices.length} slice(s)`)
            .join(', '),
        )
      : checkResult(
          poolConsistent,
          'fail',
          `${poolProblems.join('; ')}; the scheduler treats an incomplete or inconsistent pool as unusable`,
        ),
  );

  checks.push(
    oversized.length === 0
      ? checkResult(
          sliceSize,
          'pass',
          `largest slice: ${Math.max(0, ...slices.map((s) => devicesOf(s).length))} device(s)`,
        )
      : checkResult(sliceSize, 'fail', `${oversized.join('; ')}; the API server refuses such a slice (422)`),
  );

  const unowned = slices.filter(
    (slice) =>
      !(slice.metadata.ownerReferences ?? []).some(
        (o) =>
          o.kind === 'Node' &&
          o.name === expected.node &&
          (expected.nodeUid === undefined || o.uid === expected.nodeUid),
      ),
  );
  checks.push(
    unowned.length === 0
      ? checkResult(sliceOwner, 'pass', `every slice is owned by Node ${expected.node}`)
      : checkResult(
          sliceOwner,
          'warn',
          `${unowned.map(sliceName).join(', ')} without an owner reference to Node ${expected.node}` +
            `${expected.nodeUid === undefined ? '' : ` (uid ${expected.nodeUid})`}; they outlive a deleted node`,
        ),
  );

  const pci = publishedDevices(slices).filter(hasPciAddress);
  const missing = pci.filter(
    (d) => !(pciBusIdAttribute in d.attributes) || !(pcieRootAttribute in d.attributes),
  );
  checks.push(
    pci.length === 0
      ? checkResult(standardAttributes, 'skip', 'no published device has a PCI address')
      : missing.length === 0
        ? checkResult(standardAttributes, 'pass', `${pci.length} PCI device(s) with both attributes`)
        : checkResult(
            standardAttributes,
            'warn',
            `${missing
              .slice(0, 5)
              .map((d) => `${d.pool}/${d.device}`)
              .join(', ')}${missing.length > 5 ? ` and ${missing.length - 5} more` : ''} lack ` +
              `${pciBusIdAttribute} or ${pcieRootAttribute}; claims cannot align them with other PCI devices`,
          ),
  );
  return checks;
}
