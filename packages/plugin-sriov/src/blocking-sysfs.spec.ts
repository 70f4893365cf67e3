import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { createSysfs } from '@kdp/topology';
import { createSysfsFixture, type SysfsFixture } from '@kdp/topology/testing';
import { createBlockingSysfs } from './blocking-sysfs';
import { addTwoPfNode } from './sriov-node.fixture';

describe('createBlockingSysfs', () => {
  let fixture: SysfsFixture;
  beforeAll(() => {
    fixture = createSysfsFixture();
    addTwoPfNode(fixture);
    // Hostile entries: links out of the root, a dangling link, a loop, a huge file.
    writeFileSync(join(fixture.base, 'secret'), 'outside\n');
    symlinkSync(
      '../../../../../../../secret',
      join(fixture.root, fixture.pciDir('0000:3b:02.0'), 'vendor_link'),
    );
    symlinkSync(join(fixture.base, 'secret'), join(fixture.root, 'abs_escape'));
    symlinkSync('nowhere', join(fixture.root, 'dangling'));
    symlinkSync('loop', join(fixture.root, 'loop'));
    mkdirSync(join(fixture.root, 'big'));
    writeFileSync(join(fixture.root, 'big', 'file'), 'x'.repeat(200_000));
  });
  afterAll(() => fixture.remove());

  const paths = [
    'bus/pci/devices/0000:3b:02.0/vendor',
    'bus/pci/devices/0000:3b:02.0/driver',
    'bus/pci/devices/0000:3b:02.0/vendor_link',
    'bus/pci/devices/0000:3b:02.0/iommu_group',
    'bus/pci/devices/0000:3b:00.0/sriov_numvfs',
    'bus/pci/devices/0000:3b:00.0/net',
    'bus/pci/devices',
    'abs_escape',
    'dangling',
    'loop',
    'missing/file',
    '../../etc/passwd',
    '/bus/../bus/pci/devices/0000:d8:00.2/numa_node',
    'big/file',
    '',
  ];

  it.each([false, true])(
    'answers every call exactly as createSysfs does, escapes refused (remember %s)',
    async (remember) => {
      const async = createSysfs({ root: fixture.root });
      const blocking = createBlockingSysfs(fixture.root, { rememberDirectories: remember });
      for (const path of paths) {
        for (const method of [
          'locate',
          'read',
          'readInt',
          'readHex',
          'readLink',
          'readLinkName',
          'resolve',
          'list',
          'exists',
        ] as const) {
          expect([path, method, await blocking[method](path)]).toEqual([
            path,
            method,
            await async[method](path),
          ]);
        }
      }
      expect(await blocking.read('bus/pci/devices/0000:3b:02.0/vendor_link')).toBeUndefined();
      expect(await blocking.read('abs_escape')).toBeUndefined();
      expect((await blocking.read('big/file'))?.length).toBe(65536);
    },
  );

  it.each([false, true])(
    'agrees with createSysfs on arbitrary paths and never throws (remember %s)',
    async (remember) => {
      const async = createSysfs({ root: fixture.root });
      const blocking = createBlockingSysfs(fixture.root, { rememberDirectories: remember });
      const segment = fc.constantFrom(
        '..',
        '.',
        'bus',
        'pci',
        'devices',
        '0000:3b:02.0',
        'driver',
        'net',
        'loop',
        'dangling',
        'abs_escape',
        'x',
      );
      await fc.assert(
        fc.asyncProperty(fc.array(segment, { maxLength: 6 }), async (parts) => {
          const path = parts.join('/');
          expect(await blocking.locate(path)).toEqual(await async.locate(path));
          expect(await blocking.read(path)).toEqual(await async.read(path));
          expect(await blocking.list(path)).toEqual(await async.list(path));
        }),
        { numRuns: 200 },
      );
    },
  );

  it('reports a missing root', async () => {
    const blocking = createBlockingSysfs(join(fixture.base, 'nope'));
    expect(await blocking.locate('x')).toMatchObject({ ok: false, reason: 'missing' });
    expect(await blocking.list('')).toEqual([]);
  });
});
