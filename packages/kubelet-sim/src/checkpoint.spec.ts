import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { type CheckpointData, parseCheckpoint, readCheckpoint, writeCheckpoint } from './checkpoint';

const sample: CheckpointData = {
  PodDeviceEntries: [
    {
      PodUID: 'ns/p',
      ContainerName: 'c',
      ResourceName: 'example.com/dev',
      DeviceIDs: { '0': ['a'], '-1': ['b'] },
      AllocResp: 'CgA=',
    },
  ],
  RegisteredDevices: { 'example.com/dev': ['a', 'b'] },
};

describe('checkpoint (P-31)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ks-cp-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the kubelet JSON shape and reads it back', () => {
    const path = join(dir, 'kubelet_internal_checkpoint');
    writeCheckpoint(path, sample);
    const file = JSON.parse(readFileSync(path, 'utf8'));
    expect(Object.keys(file).sort()).toEqual(expect.arrayContaining(['Checksum', 'Data']));
    expect(file.Data).toEqual(sample);
    expect(readCheckpoint(path)).toEqual(sample);
  });

  it('treats a checksum mismatch as corrupt, like the kubelet', () => {
    const path = join(dir, 'kubelet_internal_checkpoint');
    writeCheckpoint(path, sample);
    const file = JSON.parse(readFileSync(path, 'utf8'));
    file.Data.RegisteredDevices['example.com/dev'].push('c');
    writeFileSync(path, JSON.stringify(file));
    expect(readCheckpoint(path)).toBeUndefined();
    expect(readCheckpoint(join(dir, 'missing'))).toBeUndefined();
  });

  it('never throws on garbage, and accepts only well-formed data', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json(),
          fc.jsonValue().map((v) => JSON.stringify({ Data: v, Checksum: 1 })),
        ),
        (text) => {
          const parsed = parseCheckpoint(text);
          if (parsed !== undefined) {
            expect(Array.isArray(parsed.PodDeviceEntries)).toBe(true);
            expect(typeof parsed.RegisteredDevices).toBe('object');
          }
        },
      ),
    );
  });
});
