import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Code, createLogger, systemClock } from '@kdp/core';
import type { DiscoverDocument } from '@kdp/core/plugin';
import { runPluginCommand } from '@kdp/core/testing';
import { createHost } from '@kdp/topology';
import { fpgaConfigSchema } from './config';
import { fpgaPlugin } from './plugin';
import { createFpgaFixture, IF_ID, NLB0, NLB3, U200, type FpgaFixture } from './testing/create-fpga-fixture';
import { programmingConfig, writeFakeProgrammer } from './testing/fake-programmer';

/** `discover --output json` on the fixture, with `config` (an object as JSON, or YAML text) when given. */
async function discover(fx: FpgaFixture, config?: object | string): Promise<DiscoverDocument> {
  const args = ['discover', '--output', 'json', '--sysfs-root', fx.root, '--dev-root', fx.devRoot];
  if (config !== undefined) {
    const file = join(fx.base, 'config.yaml');
    writeFileSync(file, typeof config === 'string' ? config : JSON.stringify(config));
    args.push('--config', file);
  }
  const { code, stdout, stderr } = await runPluginCommand(fpgaPlugin, [...args, '--log-level', 'error']);
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  return JSON.parse(stdout) as DiscoverDocument;
}

const AF_NAME = 'fpga.intel.com/af-695.d84.aVKNtusxV3qMNmj5-qCB9thCTcSko8QT-J5DNoP5BAs';

describe('discover --output json', () => {
  let fx: FpgaFixture;
  beforeEach(() => (fx = createFpgaFixture()));
  afterEach(() => fx.remove());

  it('DFL, af mode: one resource per interface/AFU pair with Intel’s compressed name, a device per port', async () => {
    fx.addDflCard({ address: '0000:81:00.0', index: 0, numaNode: 1, interfaceId: IF_ID, afuId: NLB0 });
    const doc = await discover(fx);
    expect(doc).toEqual({
      // The effective configuration: the defaults, as no --config was given.
      config: {
        mode: 'af',
        bitstreamDir: '/srv/intel.com/fpga',
        amd: { includeManagement: false },
        programming: [],
      },
      resources: [
        {
          resourceName: AF_NAME,
          devices: [
            {
              id: 'dfl-port.0',
              health: 'Healthy',
              numaNodes: [1],
              pciAddress: '0000:81:00.0',
              deviceSpecs: [
                { containerPath: '/dev/dfl-port.0', hostPath: '/dev/dfl-port.0', permissions: 'rw' },
              ],
              mounts: [],
              // What Allocate gives a container holding this port alone.
              envs: {
                KDP_FPGA_DEVICE_IDS: 'dfl-port.0',
                KDP_FPGA_PORTS: '/dev/dfl-port.0',
                KDP_FPGA_INTERFACE_ID: IF_ID,
                KDP_FPGA_AFU_ID: NLB0,
              },
              attributes: {
                vendor: '0x8086',
                device: '0x09c4',
                layout: 'dfl',
                interfaceId: IF_ID,
                afuId: NLB0,
                ports: 'dfl-port.0',
                fme: 'dfl-fme.0',
              },
            },
          ],
        },
      ],
      excluded: [],
      warnings: [],
    });
  });

  it('DFL, region mode with an SR-IOV VF: the VF is its own device and takes the PF’s interface id', async () => {
    fx.addDflCard({ address: '0000:81:00.0', index: 0, numaNode: 1, interfaceId: IF_ID, afuId: NLB0 });
    fx.addDflCard({ address: '0000:81:00.1', index: 1, numaNode: 1, afuId: NLB3, physfn: '0000:81:00.0' });
    const doc = await discover(fx, { mode: 'region' });
    expect(doc.resources.map((r) => r.resourceName)).toEqual([`fpga.intel.com/region-${IF_ID}`]);
    const [pf, vf] = doc.resources[0]?.devices ?? [];
    expect(pf).toMatchObject({
      id: 'region0',
      health: 'Healthy',
      numaNodes: [1],
      pciAddress: '0000:81:00.0',
    });
    expect(pf?.deviceSpecs).toEqual([
      { containerPath: '/dev/dfl-port.0', hostPath: '/dev/dfl-port.0', permissions: 'rw' },
    ]);
    expect(vf).toMatchObject({ id: 'region1', health: 'Healthy', pciAddress: '0000:81:00.1' });
    expect(vf?.attributes).toMatchObject({
      physfn: '0000:81:00.0',
      interfaceId: IF_ID,
      afuId: NLB3,
      ports: 'dfl-port.1',
    });
    expect(doc.excluded).toEqual([]);
  });

  it('regiondevel adds the FME node', async () => {
    fx.addDflCard({ address: '0000:81:00.0', index: 0, interfaceId: IF_ID, afuId: NLB0 });
    const doc = await discover(fx, { mode: 'regiondevel' });
    expect(doc.resources[0]?.devices[0]?.deviceSpecs.map((s) => s.hostPath)).toEqual([
      '/dev/dfl-port.0',
      '/dev/dfl-fme.0',
    ]);
  });

  it('OPAE legacy, af and region modes', async () => {
    fx.addOpaeCard({ address: '0000:5e:00.0', index: 0, numaNode: 0, interfaceId: IF_ID, afuId: NLB3 });
    const af = await discover(fx);
    expect(af.resources).toHaveLength(1);
    expect(af.resources[0]?.resourceName).toBe(
      `fpga.intel.com/af-695.f7d.${Buffer.from(IF_ID + NLB3, 'hex').toString('base64url')}`,
    );
    expect(af.resources[0]?.devices[0]).toMatchObject({
      id: 'intel-fpga-port.0',
      health: 'Healthy',
      numaNodes: [0],
      pciAddress: '0000:5e:00.0',
      deviceSpecs: [
        { containerPath: '/dev/intel-fpga-port.0', hostPath: '/dev/intel-fpga-port.0', permissions: 'rw' },
      ],
      attributes: expect.objectContaining({ layout: 'opae', fme: 'intel-fpga-fme.0' }),
    });
    // An OPAE VF (8086:09c5) exposes only a port under its own intel-fpga-dev.N.
    fx.addOpaeCard({ address: '0000:5e:00.1', index: 1, afuId: NLB0, physfn: '0000:5e:00.0' });
    const region = await discover(fx, { mode: 'region' });
    expect(region.resources[0]).toMatchObject({
      resourceName: `fpga.intel.com/region-${IF_ID}`,
      devices: [
        expect.objectContaining({ id: 'intel-fpga-dev.0' }),
        expect.objectContaining({
          id: 'intel-fpga-dev.1',
          pciAddress: '0000:5e:00.1',
          attributes: expect.objectContaining({ physfn: '0000:5e:00.0', device: '0x09c5' }),
        }),
      ],
    });
  });

  it('AMD Alveo: one resource per shell, the user function’s BDF as ID, the render node (xclmgmt only when asked)', async () => {
    fx.addAlveoCard(U200);
    const doc = await discover(fx);
    expect(doc).toEqual({
      config: expect.any(Object),
      resources: [
        {
          resourceName: 'amd.com/xilinx_u200_xdma_201830_1-1542252769',
          devices: [
            {
              id: '0000:3b:00.1',
              health: 'Healthy',
              numaNodes: [0],
              pciAddress: '0000:3b:00.1',
              deviceSpecs: [
                { containerPath: '/dev/dri/renderD128', hostPath: '/dev/dri/renderD128', permissions: 'rwm' },
              ],
              mounts: [],
              envs: { KDP_FPGA_DEVICE_IDS: '0000:3b:00.1', KDP_FPGA_RENDER_NODES: '/dev/dri/renderD128' },
              attributes: {
                vendor: '0x10ee',
                device: '0x5001',
                shell: 'xilinx_u200_xdma_201830_1',
                timestamp: '1542252769',
                managementFunction: '0000:3b:00.0',
              },
            },
          ],
        },
      ],
      excluded: [],
      warnings: [],
    });
    const withMgmt = await discover(fx, { amd: { includeManagement: true } });
    expect(withMgmt.resources[0]?.devices[0]?.deviceSpecs.map((s) => s.hostPath)).toEqual([
      '/dev/xclmgmt15104',
      '/dev/dri/renderD128',
    ]);
    expect(withMgmt.resources[0]?.devices[0]?.envs).toMatchObject({
      KDP_FPGA_MGMT_NODES: '/dev/xclmgmt15104',
    });
  });

  it('a region resource with a programming rule shows the AFU its containers get', async () => {
    const { portDir } = fx.addDflCard({ address: '0000:81:00.0', index: 0, interfaceId: IF_ID, afuId: NLB0 });
    const fake = writeFakeProgrammer(fx, NLB3);
    const doc = await discover(fx, programmingConfig(fake, join(fx.root, portDir, 'afu_id'), NLB3));
    const [region] = doc.resources[0]?.devices ?? [];
    expect(region?.attributes).toMatchObject({ afuId: NLB0, programmedAfuId: NLB3 });
    expect(region?.envs).toMatchObject({ KDP_FPGA_AFU_ID: NLB3 });
    // discover never programs: only PreStartContainer does.
    expect(fake.runs()).toEqual([]);
  });

  it('an empty interface id (intel #667) lands in excluded with the reason, in both modes', async () => {
    fx.addDflCard({ address: '0000:81:00.0', index: 0, interfaceId: '', afuId: NLB0 });
    const region = await discover(fx, { mode: 'region' });
    expect(region.resources).toEqual([]);
    expect(region.excluded).toEqual([
      {
        path: `/sys/${fx.pciDir('0000:81:00.0')}/fpga_region/region0`,
        reason: expect.stringMatching(
          /^interface id is empty \(.*compat_id\); it would make the invalid name fpga\.intel\.com\/region-$/,
        ),
      },
    ]);
    const af = await discover(fx);
    expect(af.resources).toEqual([]);
    expect(af.excluded[0]?.reason).toMatch(/^interface id is empty/);
  });

  it('a port with its error register set, or without its device node, is Unhealthy with the reason', async () => {
    fx.addDflCard({ address: '0000:81:00.0', index: 0, interfaceId: IF_ID, afuId: NLB0, errors: '0x10' });
    fx.addDflCard({ address: '0000:82:00.0', index: 1, interfaceId: IF_ID, afuId: NLB0 });
    fx.removeDevNode('/dev/dfl-port.1');
    const doc = await discover(fx);
    const devices = doc.resources[0]?.devices ?? [];
    expect(devices.map((d) => [d.id, d.health, d.attributes['problem']])).toEqual([
      ['dfl-port.0', 'Unhealthy', 'dfl-port.0: port error register errors/errors is 0x10'],
      ['dfl-port.1', 'Unhealthy', 'dfl-port.1: /dev/dfl-port.1 is missing'],
    ]);
  });

  it('garbage in sysfs degrades one device with a warning and never crashes', async () => {
    fx.addDflCard({
      address: '0000:81:00.0',
      index: 0,
      interfaceId: IF_ID,
      afuId: 'not-an-id',
      errors: 'zzz',
    });
    fx.addPciDevice({ address: '0000:90:00.0', vendor: '0x8086', device: '0x0b30', class: '0x120000' });
    fx.addPciDevice({
      address: '0000:91:00.0',
      vendor: '0x10ee',
      device: '0x5000',
      class: '0x120000',
      driver: 'vfio-pci',
    });
    fx.link('class/fpga_region/region7', '../../devices/nowhere');
    const doc = await discover(fx);
    expect(doc.resources).toEqual([]);
    expect(doc.excluded).toEqual([
      {
        path: '/sys/bus/pci/devices/0000:91:00.0',
        reason: expect.stringMatching(/neither user_pf nor mgmt_pf .*vfio-pci/),
      },
      {
        path: '/sys/bus/pci/devices/0000:90:00.0',
        reason: expect.stringMatching(/no DFL fpga_region or OPAE intel-fpga-dev container/),
      },
      {
        path: `/sys/${fx.pciDir('0000:81:00.0')}/fpga_region/region0/dfl-port.0`,
        reason: 'afu_id "not-an-id" is not 32 hex digits; no valid af- name',
      },
    ]);
    expect(doc.warnings.join('\n')).toMatch(/region7: dangling symbolic link/);
    expect(doc.warnings.join('\n')).toMatch(/errors\/errors: "zzz" is not hex/);
  });
});

describe('configuration errors', () => {
  let fx: FpgaFixture;
  beforeEach(() => (fx = createFpgaFixture()));
  afterEach(() => fx.remove());
  const serve = (text: string) => {
    const file = join(fx.base, 'bad.yaml');
    writeFileSync(file, text);
    const args = ['serve', '--config', file, '--sysfs-root', fx.root, '--device-plugin-dir', fx.base];
    return runPluginCommand(fpgaPlugin, args).then((result) => ({ ...result, file }));
  };

  it('a bad config exits 2 naming the file, the field and the problem', async () => {
    const { code, stderr, file } = await serve(
      'mode: region\nprogramming:\n  - interfaceId: xyz\n    afuId: d8424dc4a4a3c413f89e433683f9040b\n    command: [fpgaconf, "{bogus}"]\n    bitstream: /etc/passwd\n',
    );
    expect(code).toBe(2);
    expect(stderr).toContain(`${file}: programming[0].interfaceId: expected 32 hex digits`);
    expect(stderr).toContain('programming[0].command[0]: the program must be an absolute, normalized path');
    expect(stderr).toContain('programming[0].command[1]: unknown placeholder {bogus}');
    expect(stderr).toContain('programming[0].bitstream: must lie inside bitstreamDir /srv/intel.com/fpga');
  });

  it('pollIntervalMs is gone (the common --poll-interval flag replaces it) and is refused like any unknown key', async () => {
    const { code, stderr, file } = await serve('mode: af\npollIntervalMs: 500\n');
    expect(code).toBe(2);
    expect(stderr).toContain(`${file}: `);
    expect(stderr).toContain('pollIntervalMs');
  });
});

describe('flags', () => {
  it('has no --proc-root (it reads no procfs), and discover refuses serve-only flags', async () => {
    expect(fpgaPlugin.reads?.procfs).toBeUndefined();
    const proc = await runPluginCommand(fpgaPlugin, ['serve', '--proc-root', '/proc']);
    expect(proc).toMatchObject({ code: 2, stderr: expect.stringContaining("Unknown option '--proc-root'") });
    for (const flag of ['--device-plugin-dir', '--cdi-dir', '--plugins-registry-dir']) {
      const result = await runPluginCommand(fpgaPlugin, ['discover', flag, '/tmp']);
      expect(result).toMatchObject({
        code: 2,
        stderr: expect.stringContaining(`${flag} applies to serve only`),
      });
    }
  });
});

describe('the definition’s PreStartContainer hook', () => {
  it('programs through the setup state’s programmer, rescans after programming, refuses unknown IDs', async () => {
    const fx = createFpgaFixture();
    try {
      const { portDir } = fx.addDflCard({
        address: '0000:81:00.0',
        index: 0,
        interfaceId: IF_ID,
        afuId: NLB0,
      });
      const fake = writeFakeProgrammer(fx, NLB3);
      const command = [fake.program, join(fx.root, portDir, 'afu_id'), '{bitstream}'];
      const config = fpgaConfigSchema.parse({
        mode: 'region',
        bitstreamDir: fake.bitstreamDir,
        programming: [{ interfaceId: IF_ID, afuId: NLB3, command, bitstream: fake.bitstream }],
      });
      const rescan = jest.fn();
      const signal = new AbortController().signal;
      const base = {
        ...{ name: 'fpga', command: 'serve' as const, flags: {}, cdiDir: fx.base, rescan, signal, config },
        deviceListStrategy: undefined,
        ...{
          host: createHost({ sysfsRoot: fx.root, devRoot: fx.devRoot }),
          logger: createLogger({ level: 'silent' }),
        },
        clock: systemClock,
      };
      const state = await fpgaPlugin.setup?.(base);
      if (state === undefined) throw new Error('fpgaPlugin has no setup');
      const ctx = { ...base, state };
      const [region] = fpgaPlugin.resources(await fpgaPlugin.scan.run(ctx), ctx).resources;
      const preStart = (unknownIds: string[] = []) =>
        region?.preStartContainer?.({ resource: region.name, devices: region.devices, unknownIds, signal });

      await preStart();
      expect(fake.runs()).toHaveLength(1);
      // The new afu_id is read by a scan at once, not at the next poll.
      expect(rescan).toHaveBeenCalledTimes(1);
      await preStart();
      expect(fake.runs()).toHaveLength(1);
      expect(rescan).toHaveBeenCalledTimes(1);
      await expect(preStart(['region9'])).rejects.toMatchObject({
        code: Code.NotFound,
        message: `fpga-device-plugin: unknown fpga.intel.com/region-${IF_ID} devices: region9`,
      });
      // One programmer per bitstream directory: a reload that changes it makes a new one.
      expect(state.programmer(fake.bitstreamDir)).toBe(state.programmer(fake.bitstreamDir));
      expect(state.programmer('/srv/other').bitstreamDir).toBe('/srv/other');
    } finally {
      fx.remove();
    }
  });
});
