// `nx run @kdp/plugin-usb:bench`: usb-device-plugin serve on a generated tree of 500 USB devices (hubs
// included) against kubelet-sim: idle CPU and RSS, then change → kubelet latency of unplug and replug, of a
// device nobody holds (it leaves the list, then comes back) and of an allocated one (kept Unhealthy, then
// Healthy). Every change is what the kernel and udev do: sysfs first, then the /dev nodes, so the /dev watch
// (inotify) reports it. Flags: --idle DURATION (60s), --rounds N (50).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeletSim } from '@kdp/kubelet-sim';
import { runPluginBenchCli, type BenchStep } from '@kdp/kubelet-sim/testing';
import { createHost } from '@kdp/topology';
import { usbConfigSchema } from '../src/config';
import { configuredResources, pathPatterns } from '../src/resources/configured-resources';
import { planResources } from '../src/resources/plan-resources';
import { scanUsbHost } from '../src/scan/scan-usb-host';
import { generateUsbTree } from '../src/testing/generate-usb-tree';
import { createUsbFixture, type UsbDeviceSpec, type UsbFixture } from '../src/testing/usb-fixture';

const DEVICES = 500;
const FTDI = 'example.com/ftdi';
const CONFIG = {
  resources: [
    { name: FTDI, match: [{ vendor: '0403', product: '6001' }] },
    { name: 'example.com/hid', match: [{ class: '03' }], count: 2 },
    { name: 'example.com/storage', match: [{ class: '08', serial: 'SN*' }] },
  ],
};

/** The tree, with every device's spec kept so that an unplugged one can be plugged in again. */
const usb = createUsbFixture();
const specs = new Map<string, UsbDeviceSpec>();
const recording: UsbFixture = {
  ...usb,
  addDevice: (spec) => {
    specs.set(spec.portPath, spec);
    return usb.addDevice(spec);
  },
};
generateUsbTree(recording, DEVICES);
const configFile = join(usb.sys.base, 'usb.yaml');
writeFileSync(configFile, JSON.stringify(CONFIG)); // JSON is YAML

/** Plugs a device in again with another free device number on its bus, as the kernel numbers a replug. */
const used = new Set([...specs.values()].map((s) => `${s.portPath.split('-')[0]}/${s.devnum}`));
function plugIn(portPath: string): void {
  const spec = specs.get(portPath);
  if (spec === undefined) throw new Error(`bench: ${portPath} was never plugged`);
  const bus = portPath.split('-')[0];
  used.delete(`${bus}/${spec.devnum}`);
  let devnum = 2;
  while (used.has(`${bus}/${devnum}`) || devnum === spec.devnum) devnum++;
  if (devnum > 127) throw new Error(`bench: no free device number on bus ${bus}`);
  used.add(`${bus}/${devnum}`);
  const again = { ...spec, devnum };
  specs.set(portPath, again);
  usb.addDevice(again);
}

async function main(): Promise<number> {
  // What the plugin will advertise, from its own scan code: the expected counts and the FTDI adapters' IDs.
  const host = createHost({ sysfsRoot: usb.sys.root, devRoot: usb.sys.devRoot });
  const config = usbConfigSchema.parse(CONFIG);
  const scan = await scanUsbHost({ host, patterns: pathPatterns(configuredResources(config)) });
  const plan = planResources(config, scan, async () => ({}));
  const expected = new Map(plan.resources.map((r) => [r.name, r.devices.length]));
  const adapters = (plan.resources.find((r) => r.name === FTDI)?.devices ?? []).flatMap((d) =>
    d.payload?.kind === 'usb' ? [{ id: d.id, port: d.payload.device.portPath }] : [],
  );
  if (adapters.length < 2) throw new Error('bench: the tree has too few FTDI adapters');

  type Adapter = (typeof adapters)[number];
  const ftdi = (sim: KubeletSim) => sim.resource(FTDI);
  const listed = (sim: KubeletSim, id: string) =>
    ftdi(sim)?.healthy.includes(id) === true || ftdi(sim)?.unhealthy.includes(id) === true;
  /** The adapter a container holds (chosen by the kubelet at readiness), and the ones nobody holds. */
  let held = adapters[0] as Adapter;
  let free = adapters.slice(1);
  /** The free adapter of this round: each round another one. */
  let current = free[0] as Adapter;

  const removedAdded: BenchStep[] = [
    {
      kind: 'device removed',
      targetMs: 100,
      apply: (round) => {
        current = free[round % free.length] as Adapter;
        usb.removeDevice(current.port);
      },
      seen: (sim) => !listed(sim, current.id),
    },
    {
      kind: 'device added',
      targetMs: 100,
      apply: () => plugIn(current.port),
      seen: (sim) => ftdi(sim)?.healthy.includes(current.id) === true,
    },
  ];
  const healthDownUp: BenchStep[] = [
    {
      kind: 'health down (allocated device unplugged)',
      targetMs: 100,
      apply: () => usb.removeDevice(held.port),
      seen: (sim) => ftdi(sim)?.unhealthy.includes(held.id) === true,
    },
    {
      kind: 'health up (plugged in again)',
      targetMs: 100,
      apply: () => plugIn(held.port),
      seen: (sim) => ftdi(sim)?.healthy.includes(held.id) === true,
    },
  ];

  // Ready once every resource lists all its devices and a container holds one adapter (so that its unplug is
  // Unhealthy, not gone); the admission's `allocated` event, emitted before the generic one the bench waits
  // on, makes it ready.
  let admission: 'none' | 'pending' | 'done' = 'none';
  const ready = (sim: KubeletSim): boolean => {
    const complete = [...expected].every(([name, count]) => sim.resource(name)?.healthy.length === count);
    if (!complete) return false;
    if (admission === 'none') {
      admission = 'pending';
      sim.events.on('allocated', (event: { pod: string; deviceIds: string[] }) => {
        if (event.pod !== 'bench') return;
        held = adapters.find((a) => a.id === event.deviceIds[0]) ?? held;
        free = adapters.filter((a) => a !== held);
        admission = 'done';
      });
      void sim.admit({ pod: 'bench', container: 'c', resource: FTDI, count: 1 });
    }
    return admission === 'done';
  };

  return runPluginBenchCli(
    {
      title: `usb-device-plugin, ${DEVICES} USB devices (${scan.devices.length} read, ${[...expected.values()].reduce((a, b) => a + b, 0)} advertised)`,
      bundle: join(__dirname, '..', 'main.js'),
      args: (dir) => [
        'serve',
        ...['--sysfs-root', usb.sys.root, '--dev-root', usb.sys.devRoot, '--device-plugin-dir', dir],
        ...['--config', configFile],
      ],
      ready,
      cycles: [removedAdded, healthDownUp],
    },
    { cleanup: () => usb.remove() },
  );
}

void main().then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
    usb.remove();
    process.exitCode = 1;
  },
);
