import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NVML_LIBRARY } from './nvml-library';
import { resolveNvmlLibrary } from './resolve-nvml-library';

describe('resolveNvmlLibrary', () => {
  let base: string;
  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), 'kdp-nvml-root-'));
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it('finds libnvidia-ml.so.1 in NVIDIA’s library directories under the root, links resolved', () => {
    // The driver folder of the captured H100 host (fixtures/h100-firecracker/host.txt): /usr/local/nvidia/lib64.
    const root = join(base, 'usr/local/nvidia');
    mkdirSync(join(root, 'lib64'), { recursive: true });
    writeFileSync(join(root, 'lib64/libnvidia-ml.so.580.159.04'), '');
    symlinkSync('libnvidia-ml.so.580.159.04', join(root, 'lib64', NVML_LIBRARY));
    expect(resolveNvmlLibrary(root)).toBe(join(root, 'lib64/libnvidia-ml.so.580.159.04'));
  });

  it('keeps to the root: a link leaving it, a missing library or root, and / give the bare name', () => {
    const outside = join(base, 'outside.so');
    writeFileSync(outside, '');
    mkdirSync(join(base, 'root/usr/lib64'), { recursive: true });
    symlinkSync(outside, join(base, 'root/usr/lib64', NVML_LIBRARY));
    expect(resolveNvmlLibrary(join(base, 'root'))).toBe(NVML_LIBRARY);
    expect(resolveNvmlLibrary(join(base, 'missing'))).toBe(NVML_LIBRARY);
    expect(resolveNvmlLibrary('/')).toBe(NVML_LIBRARY);
    expect(resolveNvmlLibrary('relative')).toBe(NVML_LIBRARY);
  });
});
