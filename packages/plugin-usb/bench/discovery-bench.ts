// Discovery benchmark: one full scan (sysfs walk, interface nodes, match rules, IDs) of a generated fixture tree
// with 500 USB devices, repeated; prints a table. Target: under 200 ms per scan.
import { createSysfs } from '@kdp/topology';
import { computeInventory } from '../src/compute-inventory';
import { toResourceSpecs } from '../src/resource-spec';
import { usbConfigSchema } from '../src/usb-config';
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
    const specs = toResourceSpecs(config);
    const scan = async () => {
      const sysfs = createSysfs({ root: usb.sys.root });
      const start = performance.now();
      const inventory = await computeInventory({ sysfs, devRoot: usb.sys.devRoot, specs });
      return { ms: performance.now() - start, inventory };
    };
    for (let i = 0; i < 3; i++) await scan(); // warm-up
    const times: number[] = [];
    let advertised = 0;
    let seen = 0;
    for (let i = 0; i < 20; i++) {
      const { ms, inventory } = await scan();
      times.push(ms);
      advertised = inventory.resources.reduce((n, r) => n + r.devices.length, 0);
      seen = inventory.scan.devices.length;
    }
    times.sort((a, b) => a - b);
    const at = (q: number): number => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? NaN;
    const rows: Array<[string, string]> = [
      ['devices in tree (hubs)', `${tree.devices} (${tree.hubs})`],
      ['interfaces', String(tree.interfaces)],
      ['devices read', String(seen)],
      ['devices advertised (3 resources)', String(advertised)],
      ['scans', String(times.length)],
      ['min ms', at(0).toFixed(1)],
      ['median ms', at(0.5).toFixed(1)],
      ['p95 ms', at(0.95).toFixed(1)],
      ['max ms', at(1).toFixed(1)],
      [`target median < ${TARGET_MS} ms`, at(0.5) < TARGET_MS ? 'met' : 'MISSED'],
    ];
    const width = Math.max(...rows.map(([k]) => k.length));
    process.stdout.write(`USB discovery benchmark (node ${process.version})\n`);
    for (const [k, v] of rows) process.stdout.write(`${k.padEnd(width)}  ${v}\n`);
  } finally {
    usb.remove();
  }
}

void main();
