import { migMemoryGb, migProfileName } from './mig-profile';

const MIB = 1024 * 1024;

describe('migProfileName', () => {
  // Memory sizes of the order NVML reports on these parts (nvidia-smi mig -lgip); the names are NVIDIA's profiles.
  it.each([
    ['A100 40GB 1g.5gb', 1, 1, 4864, 40_536, '1g.5gb'],
    ['A100 40GB 3g.20gb', 3, 3, 19_968, 40_536, '3g.20gb'],
    ['A100 80GB 1g.10gb', 1, 1, 9728, 81_920, '1g.10gb'],
    ['A100 80GB 2g.20gb', 2, 2, 19_968, 81_920, '2g.20gb'],
    ['H100 80GB 3g.40gb', 3, 3, 40_448, 81_559, '3g.40gb'],
    ['H100 80GB 7g.80gb', 7, 7, 80_896, 81_559, '7g.80gb'],
    ['H100 80GB 1c of a 3g.40gb', 3, 1, 40_448, 81_559, '1c.3g.40gb'],
    ['H200 141GB 1g.18gb', 1, 1, 16_384, 143_771, '1g.18gb'],
  ])('%s', (_name, g, c, memorySizeMB, parentMiB, expected) => {
    expect(
      migProfileName({
        gpuInstanceSlices: g,
        computeInstanceSlices: c,
        memorySizeMB,
        parentMemoryBytes: parentMiB * MIB,
      }),
    ).toBe(expected);
  });

  it.each([
    [7, '1g.10gb+me'],
    [8, '1g.10gb+me'],
    [15, '1g.10gb+me.all'],
    [10, '1g.10gb+gfx'],
    [13, '1g.10gb-me'],
    [0, '1g.10gb'],
    [9, '1g.10gb'],
  ])('GPU instance profile %i: %s', (gpuInstanceProfile, expected) => {
    const facts = { gpuInstanceSlices: 1, computeInstanceSlices: 1, memorySizeMB: 9728 };
    expect(migProfileName({ ...facts, parentMemoryBytes: 81_920 * MIB, gpuInstanceProfile })).toBe(expected);
  });

  it('without the parent memory, the MIG memory in GiB', () => {
    expect(migMemoryGb(9728, 0)).toBe(10);
  });
});
