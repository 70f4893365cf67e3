import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTempDir, type TempDir } from '@kdp/topology/testing';
import { selectNodeConfig } from './select-node-config';

describe('selectNodeConfig', () => {
  let temp: TempDir;
  let dir: string;
  beforeEach(() => {
    temp = createTempDir('kdp-node-config-');
    dir = temp.path;
    // A ConfigMap volume: keys are links into ..data, which the kubelet swaps on update.
    mkdirSync(join(dir, '..2026_11_24'));
    for (const key of ['default.yaml', 'node-a.yaml', 'a100-mixed', 'h100.json'])
      writeFileSync(join(dir, '..2026_11_24', key), `# ${key}\n`);
    symlinkSync('..2026_11_24', join(dir, '..data'));
    for (const key of ['default.yaml', 'node-a.yaml', 'a100-mixed', 'h100.json'])
      symlinkSync(`..data/${key}`, join(dir, key));
  });
  afterEach(() => temp.remove());

  it('prefers the node label, then the node name, then --default-config, then the key named default', async () => {
    const labels = () => ({ 'nvidia.com/device-plugin.config': 'a100-mixed' });
    const label = 'nvidia.com/device-plugin.config';
    expect(await selectNodeConfig(dir, { nodeName: 'node-a', label, labels })).toEqual({
      file: join(dir, 'a100-mixed'),
      reason: 'node label nvidia.com/device-plugin.config=a100-mixed',
    });
    expect(await selectNodeConfig(dir, { nodeName: 'node-a', label, labels: () => ({}) })).toEqual({
      file: join(dir, 'node-a.yaml'),
      reason: 'node name node-a',
    });
    expect((await selectNodeConfig(dir, { nodeName: 'node-b', defaultKey: 'h100' })).file).toBe(
      join(dir, 'h100.json'),
    );
    expect((await selectNodeConfig(dir, { nodeName: 'node-b', label, labels: () => undefined })).file).toBe(
      join(dir, 'default.yaml'),
    );
  });

  it('takes the only key, and refuses what names nothing, listing the keys', async () => {
    const singleDir = createTempDir('kdp-node-config-');
    const single = singleDir.path;
    writeFileSync(join(single, 'config.yaml'), 'x: 1\n');
    expect(await selectNodeConfig(single, { nodeName: 'n' })).toEqual({
      file: join(single, 'config.yaml'),
      reason: 'the only key',
    });
    rmSync(join(dir, 'default.yaml'));
    await expect(selectNodeConfig(dir, { nodeName: 'node-z' })).rejects.toThrow(
      /no key for node node-z: its keys: a100-mixed, h100\.json, node-a\.yaml; add one named after the node/,
    );
    await expect(selectNodeConfig(dir, { label: 'l', labels: () => ({ l: 'missing' }) })).rejects.toThrow(
      /node label l=missing names no key of the directory \(its keys: a100-mixed/,
    );
    await expect(selectNodeConfig(dir, { defaultKey: 'nope' })).rejects.toThrow(
      /--default-config nope names no key/,
    );
    singleDir.remove();
  });
});
