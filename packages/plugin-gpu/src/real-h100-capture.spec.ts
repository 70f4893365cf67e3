import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runPluginCommand } from '@kdp/core/testing';
import { gpuPlugin } from './plugin';

// A real NVIDIA H100 host, captured with kdp-capture.sh (fixtures/h100-firecracker/README.md): `discover` on
// the replayed capture must equal what the plugin printed on that host with real NVML. kdp-replay.sh recreates
// /dev's character devices with mknod, which needs root (CAP_MKNOD).
const fixture = join(__dirname, '../fixtures/h100-firecracker');
const scripts = join(__dirname, '../../topology/capture');
const isRoot = process.getuid?.() === 0;

(isRoot ? describe : describe.skip)('a real H100 host, captured and replayed', () => {
  let replay: string;
  beforeAll(() => {
    replay = mkdtempSync(join(tmpdir(), 'kdp-h100-'));
    execFileSync('sh', [join(scripts, 'kdp-replay.sh'), join(fixture, 'capture.tar.gz'), join(replay, 'm')], {
      stdio: 'ignore',
    });
  });
  afterAll(() => rmSync(replay, { recursive: true, force: true }));

  it('discover on the replay equals discover on the host (UUID, NUMA node, PCI address, model, minor)', async () => {
    const m = join(replay, 'm');
    const { code, stdout, stderr } = await runPluginCommand(gpuPlugin, [
      'discover',
      ...['--sysfs-root', join(m, 'sys'), '--proc-root', join(m, 'proc'), '--dev-root', join(m, 'dev')],
      '--output',
      'json',
    ]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const onHost: unknown = JSON.parse(readFileSync(join(fixture, 'discover-on-host.json'), 'utf8'));
    // `config` is the configuration in force with its defaults, which change between releases (migStrategy none,
    // the intel keys since the capture): the devices, exclusions and warnings must not.
    const withoutConfig = (doc: unknown): unknown => ({ ...(doc as object), config: undefined });
    expect(withoutConfig(JSON.parse(stdout))).toEqual(withoutConfig(onHost));
    expect(onHost).toMatchObject({
      resources: [
        {
          resourceName: 'nvidia.com/gpu',
          devices: [
            {
              id: 'GPU-3670e041-8419-6e01-5816-87049c2ade85',
              pciAddress: '0000:00:06.0',
              attributes: { model: 'NVIDIA H100 80GB HBM3', device: '0x2330' },
            },
          ],
        },
      ],
    });
  });
});
