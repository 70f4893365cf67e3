// ResourceSlice publication time against kubelet-sim's API server, as a table (see bench.ts). Loopback HTTP, one
// API server per run, in this process: its work (parsing, validating and copying every slice, the watch events)
// counts, as the publisher's does. Each family runs once to warm up, then `BENCH_RUNS` times (default 10; 3 short).
import { performance } from 'node:perf_hooks';
import { createApiServer } from '@kdp/kubelet-sim';
import type { SliceDevice } from '../src/pool-slices';
import { createSlicePublisher, type SlicePublisherEvent } from '../src/slice-publisher';
import { formatTable, percentile, SHORT, verdict } from './bench-table';

const NODE = 'bench-node';
const RUNS = Number(process.env['BENCH_RUNS'] ?? (SHORT ? 3 : 10));
const WARMUP = 1;
const DEBOUNCE_MS = 10;
/** Issue 30's target: 2,048 devices published in at most 150 ms (p50). */
const TARGET_2048_MS = 150;

/** 2,048 SR-IOV VFs: 32 PFs × 64 VFs, with PCI addresses, NUMA node and the PF they belong to. */
function sriovVfs(): SliceDevice[] {
  const devices: SliceDevice[] = [];
  for (let pf = 0; pf < 32; pf++) {
    const bus = (0x17 + pf * 2).toString(16).padStart(2, '0');
    for (let vf = 0; vf < 64; vf++) {
      devices.push({
        name: `pf${pf}-vf${vf}`,
        attributes: {
          vendor: '8086',
          deviceId: '154c',
          driver: 'iavf',
          pfName: `ens${pf}f0`,
          vfIndex: vf,
          numaNode: pf < 16 ? 0 : 1,
          linkType: 'ether',
        },
        pciBusId: `0000:${bus}:${(2 + Math.floor(vf / 8)).toString(16).padStart(2, '0')}.${vf % 8}`,
        pcieRoot: `pci0000:${(pf < 16 ? 0x16 : 0x85).toString(16)}`,
      });
    }
  }
  return devices;
}

/** 500 USB devices: vendor/product, serial, bus and port. */
function usbDevices(): SliceDevice[] {
  return Array.from({ length: 500 }, (_, i) => ({
    name: `usb-${Math.floor(i / 32) + 1}-${(i % 32) + 1}`,
    attributes: {
      vendorId: '0403',
      productId: '6001',
      serial: `A${String(100000 + i)}`,
      manufacturer: 'FTDI',
      product: 'FT232R USB UART',
      bus: Math.floor(i / 32) + 1,
      port: (i % 32) + 1,
      speed: 'high',
    },
  }));
}

interface Sample {
  readonly ms: number;
  readonly writes: number;
}

interface Row {
  readonly case: string;
  /** Whether issue 30's target applies: a publication of 2,048 devices, the API server's own deletes not in it. */
  readonly targeted: boolean;
  /** The figure's name in the JSON output. */
  readonly metric: string;
  readonly devices: number;
  readonly slices: number;
  readonly samples: Sample[];
}

async function measureFamily(
  name: string,
  pool: string,
  devices: SliceDevice[],
  keepGeneration: boolean,
): Promise<Row[]> {
  const family = `dra.publish.${pool}-${devices.length}`;
  const row = (label: string, metric: string, targeted = devices.length === 2048): Row => ({
    case: `${name}: ${label}`,
    targeted,
    metric: `${family}.${metric}.p50`,
    devices: devices.length,
    slices: 0,
    samples: [],
  });
  const rows: Row[] = [
    row('first publish', 'first'),
    row('one device changed', keepGeneration ? 'change-keep-generation' : 'change'),
    row('wipe + republish (the deletes included)', 'wipe', false),
    row('republish after wipe (from its end)', 'republish'),
  ];
  for (let run = -WARMUP; run < RUNS; run++) {
    const api = await createApiServer({ nodes: [NODE] });
    const listeners = new Set<(e: SlicePublisherEvent) => void>();
    const publisher = createSlicePublisher({
      access: { server: api.url },
      driverName: `${pool}.kdp.dev`,
      nodeName: NODE,
      pools: { [pool]: devices },
      debounceMs: DEBOUNCE_MS,
      keepGenerationForSingleUpdate: keepGeneration,
      onEvent: (e) => listeners.forEach((l) => l(e)),
    });
    const writes = (): number => api.requests.filter((r) => !r.startsWith('GET')).length;
    const sample = async (row: Row | undefined, body: () => Promise<void>): Promise<void> => {
      const before = writes();
      const start = performance.now();
      await body();
      if (run >= 0) row?.samples.push({ ms: performance.now() - start, writes: writes() - before });
    };

    await sample(rows[0], async () => {
      publisher.start();
      await publisher.synced();
    });
    const slices = api.store.list('resourceslices').items.length;
    for (const row of rows) (row as { slices: number }).slices = slices;

    const changed = devices.map((d, i) =>
      i === Math.floor(devices.length / 2) ? { ...d, attributes: { ...d.attributes, changed: run } } : d,
    );
    await sample(rows[1], async () => {
      publisher.update({ [pool]: changed });
      await publisher.synced();
    });

    await sample(rows[2], async () => {
      // Republished when a publication leaves every slice of the pool stored again (a pass that met the wipe
      // half-way creates the rest in the next one).
      const complete = (): boolean => {
        const stored = api.store.list('resourceslices').items as {
          spec?: { pool?: { generation?: number } };
        }[];
        return stored.length === slices && new Set(stored.map((x) => x.spec?.pool?.generation)).size === 1;
      };
      const republished = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${name}: not republished within 60 s`)), 60_000);
        const listener = (e: SlicePublisherEvent): void => {
          if (e.type !== 'published' || !complete()) return;
          clearTimeout(timer);
          listeners.delete(listener);
          resolve();
        };
        listeners.add(listener);
      });
      // The API server in this process deletes the slices (and sends the watch events) before this returns:
      // the second figure starts there, where a publisher can first see the wipe.
      api.store.deleteCollection('resourceslices', { fieldSelector: `spec.nodeName=${NODE}` });
      await sample(rows[3], () => republished);
    });
    await publisher.stop();
    await api.close();
  }
  return keepGeneration
    ? rows.slice(1, 2).map((r) => ({ ...r, case: `${r.case} (keepGenerationForSingleUpdate)` }))
    : rows;
}

/** Runs the publication bench: its table, and its figures by metric name (p50 ms). */
export async function runPublishBench(): Promise<{ text: string; figures: Record<string, number> }> {
  const rows = [
    ...(await measureFamily('2,048 SR-IOV VFs', 'sriov', sriovVfs(), false)),
    ...(await measureFamily('2,048 SR-IOV VFs', 'sriov', sriovVfs(), true)),
    ...(await measureFamily('500 USB devices', 'usb', usbDevices(), false)),
    ...(await measureFamily('500 USB devices', 'usb', usbDevices(), true)),
  ];
  const header = ['case', 'devices', 'slices', 'writes', 'p50 ms', 'max ms', 'target (p50)'];
  const figures: Record<string, number> = {};
  const table = rows.map((r) => {
    const p50 = percentile(
      r.samples.map((s) => s.ms),
      0.5,
    );
    figures[r.metric] = p50;
    return [
      r.case,
      String(r.devices),
      String(r.slices),
      String(r.samples[0]?.writes ?? ''),
      p50.toFixed(1),
      Math.max(...r.samples.map((s) => s.ms)).toFixed(1),
      verdict(p50, r.targeted ? TARGET_2048_MS : undefined),
    ];
  });
  const text = [
    `ResourceSlice publication against kubelet-sim's API server in this process (loopback HTTP), ${RUNS} runs each ` +
      `after ${WARMUP} warm-up, debounce ${DEBOUNCE_MS} ms`,
    '(included in the change and wipe rows). A wipe row ends when every slice is created again; the first starts with',
    "the wipe (kubelet-sim's store deleting the 16 or 4 slices in this process), the second once it is done.",
    '',
    formatTable(header, table),
  ].join('\n');
  return { text, figures };
}
