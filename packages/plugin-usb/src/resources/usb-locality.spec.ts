import { createHost } from '@kdp/topology';
import { usbConfigSchema } from '../config';
import { createUsbScanCache } from '../scan/scan-usb-devices';
import { scanUsbHost } from '../scan/scan-usb-host';
import { defined } from '../testing/defined';
import { createUsbFixture, type UsbFixture } from '../testing/usb-fixture';
import { planResources } from './plan-resources';

/**
 * Two xHCI controllers on NUMA node 0 (buses 1 and 3) and one on node 1 (bus 2). Bus 1 has an adapter on a
 * root port and three behind a hub; the others have adapters on root ports. Every adapter has a serial, which
 * is its ID.
 */
function addTwoSocketUsb(usb: UsbFixture): void {
  usb.addRootHub(1, { address: '0000:00:14.0', numaNode: 0 });
  usb.addRootHub(2, { address: '0000:80:14.0', numaNode: 1 });
  usb.addRootHub(3, { address: '0000:00:1a.0', numaNode: 0 });
  const adapter = (portPath: string, devnum: number) =>
    usb.addDevice({ portPath, devnum, vendor: '0403', product: '6001', serial: `S${portPath}` });
  adapter('1-1', 2);
  usb.addDevice({ portPath: '1-2', devnum: 3, vendor: '05e3', product: '0610', deviceClass: '09' });
  adapter('1-2.1', 4);
  adapter('1-2.2', 5);
  adapter('1-2.3', 6);
  adapter('2-1', 2);
  adapter('2-2', 3);
  adapter('3-1', 2);
}

describe('USB topology and preferred allocation', () => {
  let usb: UsbFixture;
  beforeEach(() => {
    usb = createUsbFixture();
    addTwoSocketUsb(usb);
  });
  afterEach(() => usb.remove());

  const resource = async () => {
    const config = usbConfigSchema.parse({
      resources: [{ name: 'example.com/ftdi', match: [{ vendor: '0403' }] }],
    });
    const host = createHost({ sysfsRoot: usb.sys.root, devRoot: usb.sys.devRoot });
    const scan = await scanUsbHost({ host, patterns: [], cache: createUsbScanCache() });
    return defined(planResources(config, scan, async () => ({})).resources[0]);
  };
  const prefer = async (size: number, mustInclude: string[] = [], only?: string[]) => {
    const r = await resource();
    const available = r.devices.filter((d) => only === undefined || only.includes(d.id));
    const hook = defined(r.preferredAllocation);
    return [...(await hook({ resource: r.name, available, mustInclude, size }))].sort();
  };

  it("every device carries its controller's NUMA node and a [controller, parent hub] path", async () => {
    const r = await resource();
    expect(r.devices.map((d) => [d.id, d.numaNodes, d.pciePath])).toEqual([
      ['S1-1', [0], ['0000:00:14.0', 'usb1']],
      ['S1-2.1', [0], ['0000:00:14.0', '1-2']],
      ['S1-2.2', [0], ['0000:00:14.0', '1-2']],
      ['S1-2.3', [0], ['0000:00:14.0', '1-2']],
      ['S2-1', [1], ['0000:80:14.0', 'usb2']],
      ['S2-2', [1], ['0000:80:14.0', 'usb2']],
      ['S3-1', [0], ['0000:00:1a.0', 'usb3']],
    ]);
  });

  it('prefers one hub, then one controller, then one NUMA node', async () => {
    const hub = ['S1-2.1', 'S1-2.2', 'S1-2.3'];
    const two = await prefer(2);
    expect(two.every((id) => hub.includes(id))).toBe(true);
    expect(await prefer(3)).toEqual(hub);
    // The fourth comes from the hub's controller (the root port), not the other controller of node 0.
    expect(await prefer(4)).toEqual(['S1-1', ...hub]);
    expect(await prefer(5)).toEqual(['S1-1', ...hub, 'S3-1']);
  });

  it('with a device that must be in, takes its NUMA node and controller first', async () => {
    expect(await prefer(2, ['S2-1'])).toEqual(['S2-1', 'S2-2']);
    expect(await prefer(2, ['S3-1'], ['S1-1', 'S2-2', 'S3-1'])).toEqual(['S1-1', 'S3-1']);
  });
});
