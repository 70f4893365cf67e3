import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DiscoverDocument } from '@kdp/core/plugin';
import { runPluginCommand, startPluginRun, writeKubeletCheckpoint } from '@kdp/core/testing';
import { createKubeletSim } from '@kdp/kubelet-sim';
import { createUsbPlugin } from '../plugin';
import { addSampleMachine } from '../testing/sample-machine';
import { createUsbFixture, type UsbFixture } from '../testing/usb-fixture';
import { genericDevicePluginCompat } from './generic-device-plugin';

// squat/generic-device-plugin 0.1's published examples, re-typed: the DaemonSet args of
// manifests/generic-device-plugin.yaml (five --device flags, YAML block scalars) and the README's flags
// (`--device='{"name": "video", …}'`, the CH340 USB example). The fixture node: the sample USB machine (two FTDI
// adapters and a CH340 on ttyUSB0-2, a webcam on video0, a Zigbee stick on ttyACM0) plus /dev/fuse and two sound
// cards' controlC<n> and pcmC<n>D0c nodes under /dev/snd.

const MANIFEST_ARGS = [
  '--device',
  `name: serial
groups:
  - paths:
      - path: /dev/ttyUSB*
  - paths:
      - path: /dev/ttyACM*
  - paths:
      - path: /dev/tty.usb*
  - paths:
      - path: /dev/cu.*
  - paths:
      - path: /dev/cuaU*
  - paths:
      - path: /dev/rfcomm*
`,
  '--device',
  `name: video
groups:
  - paths:
      - path: /dev/video0
`,
  '--device',
  `name: fuse
groups:
  - count: 10
    paths:
      - path: /dev/fuse
`,
  '--device',
  `name: audio
groups:
  - count: 10
    paths:
      - path: /dev/snd
`,
  '--device',
  `name: capture
groups:
  - paths:
      - path: /dev/snd/controlC0
      - path: /dev/snd/pcmC0D0c
  - paths:
      - path: /dev/snd/controlC1
        mountPath: /dev/snd/controlC0
      - path: /dev/snd/pcmC1D0c
        mountPath: /dev/snd/pcmC0D0c
  - paths:
      - path: /dev/snd/controlC2
        mountPath: /dev/snd/controlC0
      - path: /dev/snd/pcmC2D0c
        mountPath: /dev/snd/pcmC0D0c
  - paths:
      - path: /dev/snd/controlC3
        mountPath: /dev/snd/controlC0
      - path: /dev/snd/pcmC3D0c
        mountPath: /dev/snd/pcmC0D0c
`,
];

/** generic-device-plugin's DeviceSpec for a path: host path, container path (its mountPath), `mrw` by default. */
const spec = (hostPath: string, containerPath = hostPath) => ({
  containerPath,
  hostPath,
  permissions: 'mrw',
});

describe('drop-in for generic-device-plugin (published examples)', () => {
  const plugin = { ...createUsbPlugin(), compat: [genericDevicePluginCompat] };
  let usb: UsbFixture;
  const roots = (): string[] => ['--sysfs-root', usb.sys.root, '--dev-root', usb.sys.devRoot];
  const anchorRoot = (): string => join(usb.sys.base, 'anchor');
  const discover = async (args: readonly string[], env: Record<string, string> = {}) => {
    const result = await runPluginCommand(plugin, ['discover', '--output', 'json', ...roots(), ...args], {
      env,
      anchorRoot: anchorRoot(),
    });
    expect([result.code, result.code === 0 ? '' : result.stderr]).toEqual([0, '']);
    return JSON.parse(result.stdout) as DiscoverDocument & { config: { devices: unknown[]; domain: string } };
  };
  const resource = (doc: DiscoverDocument, name: string) =>
    doc.resources.find((r) => r.resourceName === name);

  beforeEach(() => {
    usb = createUsbFixture();
    addSampleMachine(usb);
    usb.sys.addDevNode('/dev/fuse', 10, 229);
    for (const card of [0, 1]) {
      usb.sys.addDevNode(`/dev/snd/controlC${card}`, 116, card * 32);
      usb.sys.addDevNode(`/dev/snd/pcmC${card}D0c`, 116, card * 32 + 24);
    }
  });
  afterEach(() => usb.remove());

  it('the DaemonSet args: the same resource names, devices per match, DeviceSpecs and mountPath renames', async () => {
    const doc = await discover(MANIFEST_ARGS);
    expect(doc.resources.map((r) => [r.resourceName, r.devices.length])).toEqual([
      ['squat.ai/serial', 4],
      ['squat.ai/video', 1],
      ['squat.ai/fuse', 10],
      ['squat.ai/audio', 10],
      ['squat.ai/capture', 2],
    ]);
    expect(doc.config.devices).toHaveLength(5);
    expect(resource(doc, 'squat.ai/serial')?.devices.map((d) => d.deviceSpecs)).toEqual(
      ['ttyUSB0', 'ttyUSB1', 'ttyUSB2', 'ttyACM0'].map((tty) => [spec(`/dev/${tty}`)]),
    );
    expect(resource(doc, 'squat.ai/video')?.devices[0]?.deviceSpecs).toEqual([spec('/dev/video0')]);
    expect(resource(doc, 'squat.ai/fuse')?.devices[9]?.deviceSpecs).toEqual([spec('/dev/fuse')]);
    expect(resource(doc, 'squat.ai/audio')?.devices[0]?.deviceSpecs).toEqual([spec('/dev/snd')]);
    // The second sound card appears inside the container as the first, as the manifest's mountPaths say.
    expect(resource(doc, 'squat.ai/capture')?.devices.map((d) => d.deviceSpecs)).toEqual([
      [spec('/dev/snd/controlC0'), spec('/dev/snd/pcmC0D0c')],
      [spec('/dev/snd/controlC1', '/dev/snd/controlC0'), spec('/dev/snd/pcmC1D0c', '/dev/snd/pcmC0D0c')],
    ]);
    // No mounts and no variables, as generic-device-plugin (started as it: no KDP_USB_* either).
    const extras = doc.resources.flatMap((r) =>
      r.devices.flatMap((d) => [...d.mounts, ...Object.keys(d.envs)]),
    );
    expect(extras).toEqual([]);
  });

  it("the README's flags: --device='{json}', a CH340 by USB IDs, --domain", async () => {
    const doc = await discover([
      '--device={"name": "video", "groups": [{"paths": [{"path": "/dev/video0"}]}]}',
      '--device',
      '{"name": "ch340", "groups": [{"usb": [{"vendor": "1a86", "product": "7523"}]}]}',
      '--domain',
      'devic.es',
    ]);
    expect(doc.resources.map((r) => r.resourceName)).toEqual(['devic.es/video', 'devic.es/ch340']);
    // generic-device-plugin hands over the bus node of the matched device, rw, and nothing else (no tty).
    const ch340 = resource(doc, 'devic.es/ch340')?.devices[0];
    expect(ch340?.deviceSpecs).toEqual([
      { containerPath: '/dev/bus/usb/001/004', hostPath: '/dev/bus/usb/001/004', permissions: 'rw' },
    ]);
    expect(ch340?.envs).toEqual({});
  });

  it("the README's optional paths and a directory mountPath, as generic-device-plugin's path tests", async () => {
    const doc = await discover([
      // The README's (and config.go's) example of optional paths: /dev/ttyS0 is not on this node.
      '--device',
      '{"name": "serial", "groups": [{"paths": [{"path": "/dev/ttyS0", "optional": true}, {"path": "/dev/ttyUSB0", "optional": true}]}]}',
      // path_test.go's "optional paths - all missing" (no device) and its directory mountPath (/dev/serial/).
      '--device',
      '{"name": "absent", "groups": [{"paths": [{"path": "/dev/ttyS0", "optional": true}, {"path": "/dev/ttyS1", "optional": true}]}]}',
      '--device',
      '{"name": "tty", "groups": [{"paths": [{"path": "/dev/ttyUSB*", "mountPath": "/dev/serial/"}]}]}',
    ]);
    expect(doc.resources.map((r) => [r.resourceName, r.devices.map((d) => d.deviceSpecs)])).toEqual([
      ['squat.ai/serial', [[spec('/dev/ttyUSB0')]]],
      ['squat.ai/absent', []],
      [
        'squat.ai/tty',
        ['ttyUSB0', 'ttyUSB1', 'ttyUSB2'].map((tty) => [spec(`/dev/${tty}`, `/dev/serial/${tty}`)]),
      ],
    ]);
  });

  it('serves health and metrics on :8080 with the DaemonSet args, as generic-device-plugin by default', async () => {
    const dir = join(usb.sys.base, 'device-plugins');
    mkdirSync(dir);
    const run = startPluginRun(plugin, [...roots(), ...MANIFEST_ARGS, '--plugin-directory', dir], {
      anchorRoot: anchorRoot(),
    });
    try {
      // Port 8080 of this machine may be taken by another program: then the run fails naming it.
      const served = await Promise.race([
        run.waitForLog((line) => line['msg'] === 'serving /metrics, /healthz and /readyz'),
        run.done.then(() => ({ url: run.stderr() })),
      ]);
      expect(String(served['url'])).toMatch(/:8080\b/);
    } finally {
      await run.stop();
    }
  });

  it("advertises generic-device-plugin's sha1 IDs, so a node's checkpoint written by it stays valid", async () => {
    const dir = join(usb.sys.base, 'device-plugins');
    mkdirSync(dir);
    // generic-device-plugin's ID (deviceplugin/path.go): hex sha1 of the slot number, then each matched path.
    const gdpId = (slot: number, ...paths: string[]): string => {
      const hash = createHash('sha1').update(String(slot));
      for (const path of paths) hash.update(path);
      return hash.digest('hex');
    };
    const running = {
      'squat.ai/serial': [gdpId(0, '/dev/ttyUSB1')],
      'squat.ai/fuse': [gdpId(3, '/dev/fuse'), gdpId(7, '/dev/fuse')],
      'squat.ai/capture': [gdpId(0, '/dev/snd/controlC1', '/dev/snd/pcmC1D0c')],
    };
    // The kubelet's checkpoint on a node where generic-device-plugin ran the DaemonSet, with pods running.
    writeKubeletCheckpoint(
      dir,
      Object.entries(running).map(([resource, deviceIds], i) => ({
        pod: `default/pod-${i}`,
        resource,
        deviceIds,
      })),
      running,
    );
    const sim = await createKubeletSim({ dir });
    const run = startPluginRun(
      plugin,
      [...roots(), ...MANIFEST_ARGS, '--plugin-directory', dir, '--listen', '127.0.0.1:0'],
      { anchorRoot: anchorRoot() },
    );
    try {
      // After the image swap every device the running pods hold is advertised again, healthy.
      for (const [name, ids] of Object.entries(running))
        await sim.until(name, (state) => ids.every((id) => state.healthy.includes(id)));
      expect(sim.resource('squat.ai/fuse')?.capacity).toBe(10);
    } finally {
      expect(await run.stop()).toBe(0);
      await sim.close();
    }
    // Our own command line (the same device in our --config) keeps our IDs.
    const file = join(usb.sys.base, 'ours.yaml');
    writeFileSync(
      file,
      'devices:\n  - name: fuse\n    groups:\n      - count: 2\n        paths:\n          - path: /dev/fuse\n',
    );
    const ours = await discover(['--config', file]);
    expect(ours.resources.map((r) => r.devices.map((d) => d.id))).toEqual([['fuse#0', 'fuse#1']]);
  });

  it('its environment and default file: DOMAIN, LOG_LEVEL, /etc/generic-device-plugin/config.yaml; flags win', async () => {
    const dir = join(anchorRoot(), 'etc/generic-device-plugin');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'config.yaml'),
      'devices:\n  - name: fuse\n    groups:\n      - count: 2\n        paths:\n          - path: /dev/fuse\n',
    );
    const env = { DOMAIN: 'example.com', LOG_LEVEL: 'debug' };
    const fromFile = await discover([], env);
    expect(fromFile.resources.map((r) => [r.resourceName, r.devices.length])).toEqual([
      ['example.com/fuse', 2],
    ]);
    // --device flags replace the file's devices, as viper's flags win over its file.
    const flags = await discover(MANIFEST_ARGS.slice(2, 4), env);
    expect(flags.resources.map((r) => r.resourceName)).toEqual(['example.com/video']);
    // A generic-device-plugin file with the keys of its flags: each named, with the flag to give instead.
    writeFileSync(join(dir, 'config.yaml'), 'listen: ":9090"\ndevice:\n  - name: fuse\n    groups: []\n');
    const result = await runPluginCommand(plugin, ['discover', ...roots()], { anchorRoot: anchorRoot() });
    expect([result.code, result.stderr]).toEqual([
      2,
      expect.stringContaining(
        'listen: not read from the file here: give --metrics-address on the command line',
      ),
    ]);
  });

  it('refuses what it cannot honour: --log-level none, DEVICE in the environment, a name gdp rejects', async () => {
    const cases: Array<[readonly string[], Record<string, string>, string]> = [
      [[...MANIFEST_ARGS.slice(0, 2), '--log-level', 'none'], {}, '--log-level: none is not supported'],
      [
        [],
        { DEVICE: '{"name":"fuse"}' },
        'environment variable DEVICE (squat/generic-device-plugin 0.1) is not supported',
      ],
      [
        ['--device', '{"name": "Serial", "groups": []}'],
        {},
        'device name "Serial" must match the regular expression',
      ],
    ];
    for (const [args, env, message] of cases) {
      const result = await runPluginCommand(plugin, ['discover', ...roots(), ...args], { env });
      expect([args, result.code, result.stderr]).toEqual([args, 2, expect.stringContaining(message)]);
    }
  });

  it('serves the DaemonSet with --plugin-directory and --listen: Allocate gives the same specs', async () => {
    const dir = join(usb.sys.base, 'device-plugins');
    mkdirSync(dir);
    const sim = await createKubeletSim({ dir });
    const run = startPluginRun(
      plugin,
      [
        ...roots(),
        ...MANIFEST_ARGS,
        '--plugin-directory',
        dir,
        '--listen',
        '127.0.0.1:0',
        '--log-level',
        'all',
      ],
      { anchorRoot: anchorRoot() },
    );
    try {
      await sim.until('squat.ai/capture', (state) => state.healthy.length === 2);
      // Each capture device is one sound card's pair of nodes, seen inside as card 0.
      const capture = await sim.admit({ pod: 'p1', container: 'c', resource: 'squat.ai/capture', count: 1 });
      expect([
        [spec('/dev/snd/controlC0'), spec('/dev/snd/pcmC0D0c')],
        [spec('/dev/snd/controlC1', '/dev/snd/controlC0'), spec('/dev/snd/pcmC1D0c', '/dev/snd/pcmC0D0c')],
      ]).toContainEqual(capture.response.devices);
      const fuse = await sim.admit({ pod: 'p2', container: 'c', resource: 'squat.ai/fuse', count: 1 });
      expect(fuse.response.devices).toEqual([spec('/dev/fuse')]);
      // --listen serves health and metrics (here /healthz, where generic-device-plugin has /health).
      const served = await run.waitForLog((line) => line['msg'] === 'serving /metrics, /healthz and /readyz');
      expect((await fetch(`${String(served['url'])}/healthz`)).status).toBe(200);
    } finally {
      expect(await run.stop()).toBe(0);
      await sim.close();
    }
  });
});
