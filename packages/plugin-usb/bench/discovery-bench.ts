// Discovery benchmark (`nx run @kdp/plugin-usb:bench:discovery`): one scan (sysfs walk, interface nodes, match
// rules, IDs) of a generated fixture tree with 500 USB devices, repeated; prints a table. Cold: what `discover`
// does; warm: what `serve` does after a change, with the scan cache of the last scan. Target: cold under 200 ms.
import { cpus, loadavg } from 'node:os';
import { createHost } from '@kdp/topology';
import { usbConfigSchema } from '../src/config';
import { configuredResources, pathPatterns } from '../src/resources/configured-resources';
import { planResources } from '../src/resources/plan-resources';
import { createUsbScanCache } from '../src/scan/scan-usb-devices';
import { scanUsbHost } from '../src/scan/scan-usb-host';
import { generateUsbTree } from '../src/testing/generate-usb-tree';
import { createUsbFixture } from '../src/testing/usb-fixture';

const TARGET_MS = 200;

async function main(): Promise<void> {
  const usb = createUsbFixture();
  try {
    const tree = generateUsbTree(usb, 500);
    const config = usbConfigSchema.parse({
      resources: [
        { name: 'example.com/ftdi', match: [{ vendor: '0403', product: '6001' }] },
        { name: 'example.com/hid', match: [{ class: '03' }], count: 2 },
        { name: 'example.com/storage', match: [{ class: '08', serial: 'SN*' }] },
      ],
    });
    const patterns = pathPatterns(configuredResources(config));
    // Cold: what `discover` does (fresh reader, no cache). Warm: what `serve` does on every trigger (the devices
    // of the last scan cached; nothing changed, so each device costs one stat).
    const cache = createUsbScanCache();
    const scan = async (warm: boolean) => {
      const host = createHost({ sysfsRoot: usb.sys.root, devRoot: usb.sys.devRoot });
      const start = performance.now();
      const scanned = await scanUsbHost({ host, patterns, ...(warm ? { cache } : {}) });
      const inventory = { scan: scanned, ...planResources(config, scanned, async () => ({})) };
      return { ms: performance.now() - start, inventory };
    };
    for (let i = 0; i < 3; i++) await scan(true); // warm-up (JIT, dentry cache)
    const cold: number[] = [];
    const warm: number[] = [];
    let advertised = 0;
    let seen = 0;
    for (let i = 0; i < 20; i++) {
      const { ms, inventory } = await scan(false);
      cold.push(ms);
      warm.push((await scan(true)).ms);
      advertised = inventory.resources.reduce((n, r) => n + r.devices.length, 0);
      seen = inventory.scan.devices.length;
    }
    const stats = (times: number[]) => {
      const sorted = [...times].sort((a, b) => a - b);
      return (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
    };
    const c = stats(cold);
    const w = stats(warm);
    const [load] = loadavg();
    const rows: Array<[string, string]> = [
      ['devices in tree (hubs)', `${tree.devices} (${tree.hubs})`],
      ['interfaces', String(tree.interfaces)],
      ['devices read', String(seen)],
      ['devices advertised (3 resources)', String(advertised)],
      ['scans (each)', String(cold.length)],
      [
        'cold scan min / median / p95 ms',
        `${c(0).toFixed(1)} / ${c(0.5).toFixed(1)} / ${c(0.95).toFixed(1)}`,
      ],
      [
        'warm scan min / median / p95 ms',
        `${w(0).toFixed(1)} / ${w(0.5).toFixed(1)} / ${w(0.95).toFixed(1)}`,
      ],
      [`target: cold median < ${TARGET_MS} ms`, c(0.5) < TARGET_MS ? 'met' : 'MISSED'],
      ['cpus / load average (1 min)', `${cpus().length} / ${(load ?? 0).toFixed(2)}`],
    ];
    const width = Math.max(...rows.map(([k]) => k.length));
    process.stdout.write(`USB discovery benchmark (node ${process.version})\n`);
    for (const [k, v] of rows) process.stdout.write(`${k.padEnd(width)}  ${v}\n`);
  } finally {
    usb.remove();
  }
}

void main();
