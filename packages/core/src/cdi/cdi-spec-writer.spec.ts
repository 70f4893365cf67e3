import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCdiSpecWriter } from './cdi-spec-writer';
import { CDI_SPEC_VERSION, minimumCdiVersion } from './cdi-spec';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'kdp-cdi-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const gpu0 = {
  name: 'GPU-0',
  containerEdits: { deviceNodes: [{ path: '/dev/nvidia0', hostPath: '/dev/nvidia0', permissions: 'rw' }] },
};

describe('createCdiSpecWriter', () => {
  it('writes the current cdiVersion, the kind and the devices, mode 0644 in a new dir of mode 0755', async () => {
    const dir = join(root, 'var', 'run', 'cdi');
    const writer = createCdiSpecWriter({ dir, vendor: 'kdp.example.com', class: 'gpu' });
    const previous = process.umask(0o077);
    try {
      expect(await writer.write([gpu0], { env: ['KDP=1'] })).toEqual({ path: writer.path, changed: true });
    } finally {
      process.umask(previous);
    }
    expect(writer.path).toBe(join(dir, 'kdp-kdp.example.com-gpu.json'));
    expect(JSON.parse(await readFile(writer.path, 'utf8'))).toEqual({
      cdiVersion: CDI_SPEC_VERSION,
      kind: 'kdp.example.com/gpu',
      devices: [gpu0],
      containerEdits: { env: ['KDP=1'] },
    });
    expect((await stat(writer.path)).mode & 0o777).toBe(0o644);
    for (const d of [dir, join(root, 'var', 'run'), join(root, 'var')])
      expect((await stat(d)).mode & 0o777).toBe(0o755);
    expect(writer.qualifiedName('GPU-0')).toBe('kdp.example.com/gpu=GPU-0');
  });

  it('replaces the file atomically (a new inode, no temp file left) and skips identical content', async () => {
    const writer = createCdiSpecWriter({ dir: root, vendor: 'example.com', class: 'gpu' });
    await writer.write([gpu0]);
    const before = await stat(writer.path);
    expect(await writer.write([gpu0])).toEqual({ path: writer.path, changed: false });
    expect((await stat(writer.path)).ino).toBe(before.ino);
    await writer.write([gpu0, { name: 'GPU-1', containerEdits: {} }]);
    expect((await stat(writer.path)).ino).not.toBe(before.ino);
    expect(await readdir(root)).toEqual(['kdp-example.com-gpu.json']);
  });

  it('keeps instances apart and removes only its own file', async () => {
    const a = createCdiSpecWriter({ dir: root, vendor: 'example.com', class: 'gpu', instance: 'node/a' });
    const b = createCdiSpecWriter({ dir: root, vendor: 'example.com', class: 'gpu', instance: 'b' });
    await writeFile(join(root, 'example.com-gpu.json'), '{}');
    await a.write([gpu0]);
    await b.write([gpu0]);
    expect((await readdir(root)).sort()).toEqual([
      'example.com-gpu.json',
      'kdp-example.com-gpu_b.json',
      'kdp-example.com-gpu_node_a.json',
    ]);
    await writeFile(join(root, '.kdp-example.com-gpu_node_a.json.123.abcd.tmp'), 'left over by a crash');
    await a.remove();
    await a.remove(); // idempotent
    expect((await readdir(root)).sort()).toEqual(['example.com-gpu.json', 'kdp-example.com-gpu_b.json']);
  });

  it('removes the file when there are no devices (a CDI spec needs at least one)', async () => {
    const writer = createCdiSpecWriter({ dir: root, vendor: 'example.com', class: 'gpu' });
    await writer.write([gpu0]);
    expect(await writer.write([])).toEqual({ path: undefined, changed: true });
    expect(await readdir(root)).toEqual([]);
  });

  it('rejects bad names and edits with every problem listed, and writes nothing', async () => {
    expect(() => createCdiSpecWriter({ dir: root, vendor: '1bad', class: 'gpu' })).toThrow(
      'invalid CDI vendor "1bad": must start with a letter',
    );
    expect(() => createCdiSpecWriter({ dir: root, vendor: 'example.com', class: 'g/pu' })).toThrow(
      'character "/" is not allowed',
    );
    const writer = createCdiSpecWriter({ dir: root, vendor: 'example.com', class: 'gpu' });
    await expect(
      writer.write([
        { name: 'bad name', containerEdits: { env: ['NOVALUE'] } },
        {
          name: 'x',
          containerEdits: {
            deviceNodes: [{ path: 'dev/x', permissions: 'rwx' }],
            mounts: [{ hostPath: '/a', containerPath: 'b' }],
          },
        },
        { name: 'x', containerEdits: { hooks: [{ hookName: 'later', path: '/bin/h', timeout: 0 }] } },
      ]),
    ).rejects.toThrow(
      [
        'invalid CDI spec for example.com/gpu:',
        '  devices[0].name: invalid CDI device name "bad name": character " " is not allowed',
        '  devices[0].containerEdits.env[0]: "NOVALUE" is not NAME=value',
        '  devices[1].containerEdits.deviceNodes[0].path: "dev/x" is not an absolute path',
        '  devices[1].containerEdits.deviceNodes[0].permissions: "rwx" is not made of r, w, m',
        '  devices[1].containerEdits.mounts[0].containerPath: "b" is not an absolute path',
        '  devices[2].name: duplicate device name "x"',
        '  devices[2].containerEdits.hooks[0].hookName: "later" is not an OCI hook',
        '  devices[2].containerEdits.hooks[0].timeout: must be a positive integer',
      ].join('\n'),
    );
    expect(await readdir(root)).toEqual([]);
  });

  it('can write the minimum cdiVersion for older runtimes', async () => {
    const writer = createCdiSpecWriter({
      dir: root,
      vendor: 'example.com',
      class: 'gpu',
      cdiVersion: 'minimum',
    });
    await writer.write([{ name: 'gpu0', containerEdits: { deviceNodes: [{ path: '/dev/x' }] } }]);
    expect(JSON.parse(await readFile(writer.path, 'utf8')).cdiVersion).toBe('0.3.0');
    expect(minimumCdiVersion({ kind: 'a/b', devices: [gpu0] })).toBe('0.5.0');
    expect(minimumCdiVersion({ kind: 'a/b.c', devices: [{ name: 'x', containerEdits: {} }] })).toBe('0.6.0');
    expect(
      minimumCdiVersion({
        kind: 'a/b',
        devices: [
          { name: 'x', containerEdits: { mounts: [{ hostPath: '/a', containerPath: '/a', type: 'bind' }] } },
        ],
      }),
    ).toBe('0.4.0');
    expect(
      minimumCdiVersion({ kind: 'a/b', devices: [{ name: 'x', containerEdits: { additionalGids: [44] } }] }),
    ).toBe('0.7.0');
  });
});
