import type { SysfsFixture } from '@kdp/topology/testing';
import { scanGpus } from '../scan/scan-gpus';
import { fixtureHost } from '../testing/fixture-devices';
import {
  AMD_GPUS,
  buildAmdMachine,
  buildIntelMachine,
  buildNvidiaMachine,
  INTEL_GPUS,
  NVIDIA_UUIDS,
} from '../testing/machines';
import { gpuIndexes } from './gpu-indexes';

describe('gpuIndexes', () => {
  const fixtures: SysfsFixture[] = [];
  afterAll(() => fixtures.forEach((f) => f.remove()));
  const indexesOf = async (build: () => SysfsFixture) => {
    const fixture = build();
    fixtures.push(fixture);
    return Object.fromEntries(gpuIndexes((await scanGpus(fixtureHost(fixture))).gpus));
  };

  it('NVIDIA: GPUs in PCI order as nvidia-smi, MIG devices as <gpu>:<n> under their MIG-enabled GPU', async () => {
    const u = NVIDIA_UUIDS;
    expect(await indexesOf(buildNvidiaMachine)).toEqual({
      [u['0000:03:00.0']]: '0',
      [u['0000:04:00.0']]: '1',
      [u['0000:83:00.0']]: '2',
      [`MIG-${u['0000:86:00.0']}/1/0`]: '3:0',
      [`MIG-${u['0000:86:00.0']}/2/0`]: '3:1',
    });
  });

  it('AMD and Intel: numbered per vendor in PCI address order', async () => {
    expect(await indexesOf(buildAmdMachine)).toEqual({
      [AMD_GPUS.a]: '0',
      [AMD_GPUS.b]: '1',
      [AMD_GPUS.c]: '2',
      [AMD_GPUS.d]: '3',
    });
    const intel = await indexesOf(buildIntelMachine);
    expect([intel[INTEL_GPUS.igpu], intel[INTEL_GPUS.flex], intel[INTEL_GPUS.battlemage]]).toEqual([
      '0',
      '1',
      '2',
    ]);
  });
});
