import { readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { PluginDevice } from '@kdp/core';
import { createHost, type Host } from '@kdp/topology';
import { fpgaConfigSchema, type ProgrammingRule } from '../config';
import type { FpgaPayload } from '../resources/fpga-payload';
import { planResources } from '../resources/plan-resources';
import { scanFpgas } from '../scan/scan-fpgas';
import { createFpgaFixture, IF_ID, NLB0, NLB3, type FpgaFixture } from '../testing/create-fpga-fixture';
import { setFakeMode, writeFakeProgrammer, type FakeProgrammer } from '../testing/fake-programmer';
import { createRegionProgrammer } from './region-programmer';

describe('createRegionProgrammer', () => {
  let fx: FpgaFixture;
  let fake: FakeProgrammer;
  let afuFile: string;
  let device: PluginDevice<FpgaPayload>;
  let host: Host;

  const rule = (overrides: Partial<ProgrammingRule> = {}): ProgrammingRule =>
    fpgaConfigSchema.parse({
      mode: 'region',
      bitstreamDir: fake.bitstreamDir,
      programming: [
        {
          interfaceId: IF_ID,
          afuId: NLB3,
          command: [fake.program, afuFile, '{bitstream}'],
          bitstream: fake.bitstream,
          ...overrides,
        },
      ],
    }).programming[0] as ProgrammingRule;

  const programmer = () => createRegionProgrammer({ sysfs: host.sysfs, bitstreamDir: fake.bitstreamDir });

  beforeEach(async () => {
    fx = createFpgaFixture();
    const { portDir } = fx.addDflCard({ address: '0000:81:00.0', index: 0, interfaceId: IF_ID, afuId: NLB0 });
    afuFile = join(fx.root, portDir, 'afu_id');
    fake = writeFakeProgrammer(fx, NLB3);
    host = createHost({ sysfsRoot: fx.root, devRoot: fx.devRoot });
    const inventory = planResources(await scanFpgas(host), {
      mode: 'region',
      amd: { includeManagement: false },
      programming: [],
    });
    device = inventory.resources[0]?.devices[0] as PluginDevice<FpgaPayload>;
  });
  afterEach(() => fx.remove());

  it('programs when the loaded AFU differs, verifies it, and skips when it is already loaded', async () => {
    const p = programmer();
    await expect(p.prepare(rule(), [device])).resolves.toEqual([
      expect.objectContaining({ device: 'region0', action: 'programmed' }),
    ]);
    expect(readFileSync(afuFile, 'utf8').trim()).toBe(NLB3);
    expect(fake.runs()).toEqual([`${afuFile} ${fake.bitstream}`]);
    await expect(p.prepare(rule(), [device])).resolves.toEqual([
      expect.objectContaining({ action: 'already-loaded' }),
    ]);
    expect(fake.runs()).toHaveLength(1);
  });

  it('a non-zero exit fails with the exit code and the captured output', async () => {
    setFakeMode(fx, 'fail');
    await expect(programmer().prepare(rule(), [device])).rejects.toThrow(
      `fpga-device-plugin: programming region0 with ${fake.program} exited with code 3; output: fpgaconf: bitstream is not compatible with this FPGA`,
    );
  });

  it('a hanging command is killed at its timeout and the start fails with DEADLINE_EXCEEDED', async () => {
    setFakeMode(fx, 'hang');
    const started = Date.now();
    const error = await programmer()
      .prepare(rule({ timeoutMs: 300 }), [device])
      .then(
        () => undefined,
        (e: unknown) => e as Error & { code: number },
      );
    expect(error).toBeDefined();
    expect(error?.message).toBe(
      `fpga-device-plugin: programming region0 with ${fake.program} timed out after 300 ms and was killed; output: programming...`,
    );
    expect(error?.code).toBe(4);
    // The whole process group died: nothing kept the pipes open for the sleep's 60 s.
    expect(Date.now() - started).toBeLessThan(30_000);
  }, 40_000);

  it('a command that exits 0 but leaves the old AFU fails the start with both ids', async () => {
    setFakeMode(fx, 'noop');
    await expect(programmer().prepare(rule(), [device])).rejects.toThrow(
      `succeeded but the AFU is still wrong: dfl-port.0 reads ${NLB0}; expected ${NLB3}`,
    );
  });

  it('a bitstream that resolves outside the bitstream directory is refused without running anything', async () => {
    const sneaky = join(fake.bitstreamDir, 'sneaky.gbs');
    symlinkSync('/etc/hostname', sneaky);
    await expect(programmer().prepare(rule({ bitstream: sneaky }), [device])).rejects.toThrow(
      /bitstream .*sneaky\.gbs resolves to \/etc\/hostname, outside the bitstream directory/,
    );
    expect(fake.runs()).toEqual([]);
  });

  it('a missing or non-executable program is refused with the reason', async () => {
    await expect(
      programmer().prepare(rule({ command: ['/nonexistent/fpgaconf', '{bitstream}'] }), [device]),
    ).rejects.toThrow('fpga-device-plugin: programming command /nonexistent/fpgaconf cannot be run: ENOENT');
  });

  it('fills placeholders from sysfs and never through a shell', async () => {
    const rules = rule({
      command: [
        fake.program,
        afuFile,
        '{bitstream}',
        '{port}',
        '{fme}',
        '{bus}:{device}.{function}',
        '$(id)',
      ],
    });
    await programmer().prepare(rules, [device]);
    expect(fake.runs()).toEqual([
      `${afuFile} ${fake.bitstream} /dev/dfl-port.0 /dev/dfl-fme.0 81:00.0 $(id)`,
    ]);
  });
});
