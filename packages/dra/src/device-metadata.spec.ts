import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDeviceMetadataWriter } from './device-metadata';
import type { ResourceClaim } from './resource-claim';

const claim = (uid: string): ResourceClaim => ({ metadata: { name: 'c', namespace: 'ns', uid } });
const device = (request: string, name: string) => ({
  request,
  driver: 'gpu.kdp.dev',
  pool: 'node/gpu',
  device: name,
  attributes: { uuid: { string: `GPU-${name}` } },
});

describe('createDeviceMetadataWriter', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'kdp-meta-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes one file per base request, mounted read-only at the KEP 5304 path, and removes them', async () => {
    const writer = createDeviceMetadataWriter(dir, 'gpu.kdp.dev');
    const mounts = await writer.write(claim('u-1'), [
      device('a', 'gpu-0'),
      device('b/any', 'gpu-1'),
      device('a', 'gpu-2'),
    ]);
    expect([...mounts.keys()]).toEqual(['a', 'b']);
    const a = mounts.get('a');
    expect(a).toEqual({
      hostPath: join(dir, 'u-1', 'a', 'gpu.kdp.dev-metadata.json'),
      containerPath:
        '/var/run/kubernetes.io/dra-device-attributes/resourceclaims/c/a/gpu.kdp.dev-metadata.json',
      type: 'bind',
      options: ['ro', 'nosuid', 'nodev', 'noexec', 'bind'],
    });
    expect(statSync(a?.hostPath ?? '').mode & 0o777).toBe(0o644);
    expect(JSON.parse(readFileSync(a?.hostPath ?? '', 'utf8'))).toEqual({
      apiVersion: 'metadata.kdp.dev/v1alpha1',
      kind: 'DeviceMetadata',
      metadata: { name: 'c', namespace: 'ns', uid: 'u-1' },
      requests: [
        {
          name: 'a',
          devices: [
            {
              driver: 'gpu.kdp.dev',
              pool: 'node/gpu',
              device: 'gpu-0',
              attributes: { uuid: { string: 'GPU-gpu-0' } },
            },
            {
              driver: 'gpu.kdp.dev',
              pool: 'node/gpu',
              device: 'gpu-2',
              attributes: { uuid: { string: 'GPU-gpu-2' } },
            },
          ],
        },
      ],
    });
    await writer.remove('u-1');
    expect(existsSync(join(dir, 'u-1'))).toBe(false);
  });

  it('refuses a claim UID or request that would leave its directory', async () => {
    const writer = createDeviceMetadataWriter(dir, 'gpu.kdp.dev');
    await expect(writer.write(claim('../x'), [device('a', 'gpu-0')])).rejects.toThrow(/claim UID/);
    await expect(writer.write(claim('u-2'), [device('..', 'gpu-0')])).rejects.toThrow(/request/);
    await expect(writer.remove('../x')).rejects.toThrow(/claim UID/);
  });
});
