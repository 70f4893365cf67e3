import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '@kdp/base';
import { createHost } from '@kdp/topology';
import { createSysfsFixture, type SysfsFixture } from '@kdp/topology/testing';
import Ajv from 'ajv';
import cdiDefs from '../cdi/testdata/defs.json';
import cdiSchema from '../cdi/testdata/schema.json';
import { Code } from '../code';
import type { PluginDevice } from '../plugin-device';
import { resolveCdiDevices } from '../testing/resolve-cdi-devices';
import { cdiDeviceName, createCdiPublisher, defaultCdiKind, type CdiPublisher } from './cdi-publisher';
import type { ResourceSpec } from './define-plugin';

// The CDI project's own JSON schema (cncf-tags/container-device-interface, schema/), as data.
const ajv = new Ajv({ allErrors: true, strict: false });
ajv.addSchema(cdiDefs, 'defs.json');
const validateSpec = ajv.compile(cdiSchema);

let fixture: SysfsFixture;
let dir: string;
let publisher: CdiPublisher;
const controller = new AbortController();

const device = (id: string, node = `/dev/x${id}`): PluginDevice<string> => ({
  id,
  health: 'Healthy',
  payload: node,
});
const resource = (
  name: string,
  devices: PluginDevice<string>[],
  extra: Partial<ResourceSpec<string>> = {},
): ResourceSpec<string> => ({
  name,
  devices,
  allocate: ({ devices: chosen }) => ({
    envs: { LIST: chosen.map((d) => d.id).join(',') },
    devices: chosen.flatMap((d) =>
      d.payload === '' ? [] : [{ containerPath: d.payload ?? '', hostPath: d.payload ?? '' }],
    ),
    mounts: chosen.some((d) => d.payload === '')
      ? []
      : [{ containerPath: '/etc/x', hostPath: '/etc/x', readOnly: true }],
  }),
  deviceListStrategy: ['cdi'],
  ...extra,
});

beforeEach(() => {
  fixture = createSysfsFixture();
  dir = mkdtempSync(join(tmpdir(), 'kdp-cdi-'));
  publisher = createCdiPublisher({
    dir,
    plugin: 'test',
    host: createHost({ sysfsRoot: fixture.root, devRoot: fixture.devRoot }),
    logger: silentLogger,
    strategies: (spec) => new Set(spec.deviceListStrategy ?? ['device-specs']),
    signal: controller.signal,
  });
  for (const id of ['0', '1', '2']) fixture.addDevNode(`/dev/x${id}`, 240, Number(id));
});
afterEach(() => {
  fixture.remove();
  rmSync(dir, { recursive: true, force: true });
});

describe('defaultCdiKind and cdiDeviceName', () => {
  it('derives NVIDIA-style kinds and safe device names', () => {
    expect(defaultCdiKind('nvidia.com/gpu')).toBe('k8s.device-plugin.nvidia.com/gpu');
    expect(defaultCdiKind('intel.com/intel_sriov_netdevice')).toBe(
      'k8s.device-plugin.intel.com/intel_sriov_netdevice',
    );
    expect(defaultCdiKind('example.com/0dpdk')).toBe('k8s.device-plugin.example.com/r0dpdk');
    expect(cdiDeviceName('0000:3b:02.0')).toBe('0000:3b:02.0');
    expect(cdiDeviceName('GPU-1/mig-2')).toBe('GPU-1_mig-2');
    expect(cdiDeviceName('_usb-')).toBe('d_usb-0');
  });
});

describe('createCdiPublisher', () => {
  it('writes one schema-valid spec per kind, 0644, whose names resolve to each device alone', async () => {
    const spec = resource('example.com/x', [device('0'), device('1')]);
    expect(
      await publisher.publish({
        resources: [
          spec,
          resource('example.com/plain', [device('2')], { deviceListStrategy: ['device-specs'] }),
        ],
      }),
    ).toEqual([]);
    const files = readdirSync(dir);
    expect(files).toEqual(['kdp-k8s.device-plugin.example.com-x_test.json']);
    const path = join(dir, files[0] ?? '');
    expect(statSync(path).mode & 0o777).toBe(0o644);
    const written = JSON.parse(readFileSync(path, 'utf8'));
    expect(validateSpec(written)).toBe(true);
    expect(written).toMatchObject({ cdiVersion: '1.1.0', kind: 'k8s.device-plugin.example.com/x' });
    const names = publisher.names('example.com/x', [device('0'), device('1')]);
    expect(names).toEqual(['k8s.device-plugin.example.com/x=0', 'k8s.device-plugin.example.com/x=1']);
    expect(resolveCdiDevices(dir, names)).toEqual({
      devices: [
        { containerPath: '/dev/x0', hostPath: '/dev/x0', permissions: 'rw' },
        { containerPath: '/dev/x1', hostPath: '/dev/x1', permissions: 'rw' },
      ],
      mounts: [{ containerPath: '/etc/x', hostPath: '/etc/x', readOnly: true }],
      env: [],
      files,
    });
  });

  it('leaves out a device whose node is missing under --dev-root, and Allocate of it fails with FAILED_PRECONDITION', async () => {
    const warnings = await publisher.publish({
      resources: [resource('example.com/x', [device('0'), device('9')])],
    });
    expect(warnings).toEqual([
      'example.com/x: device 9 left out of the CDI spec: /dev/x9 is not a device node under --dev-root',
    ]);
    expect(() => publisher.names('example.com/x', [device('9')])).toThrow(
      expect.objectContaining({ code: Code.FailedPrecondition, message: expect.stringContaining('/dev/x9') }),
    );
    expect(publisher.names('example.com/x', [device('0')])).toHaveLength(1);
  });

  it('gives no CDI device to a device with nothing for CDI to carry, without failing Allocate', async () => {
    await publisher.publish({ resources: [resource('example.com/x', [device('0'), device('e', '')])] });
    expect(publisher.names('example.com/x', [device('e')])).toEqual([]);
    expect(JSON.parse(readFileSync(join(dir, readdirSync(dir)[0] ?? ''), 'utf8')).devices).toHaveLength(1);
  });

  it('shares one CDI device between devices of one name (replicas), and refuses one name with other edits', async () => {
    const byNode = { cdi: { deviceName: (d: PluginDevice<string>) => `n${(d.payload ?? '').slice(-1)}` } };
    const replicas = [device('a', '/dev/x0'), device('b', '/dev/x0'), device('c', '/dev/x1')];
    await publisher.publish({ resources: [resource('example.com/x', replicas, byNode)] });
    expect(publisher.names('example.com/x', replicas)).toEqual([
      'k8s.device-plugin.example.com/x=n0',
      'k8s.device-plugin.example.com/x=n1',
    ]);
    const clash = { cdi: { deviceName: () => 'same' } };
    const warnings = await publisher.publish({
      resources: [resource('example.com/x', [device('0'), device('1')], clash)],
    });
    expect(warnings).toEqual([
      'example.com/x: device 1 left out of the CDI spec: CDI name same is taken by a device with other edits',
    ]);
  });

  it('removes the spec of a resource that left or stopped using CDI, and every spec on remove()', async () => {
    await publisher.publish({
      resources: [resource('example.com/x', [device('0')]), resource('example.com/y', [device('1')])],
    });
    expect(readdirSync(dir)).toHaveLength(2);
    await publisher.publish({ resources: [resource('example.com/x', [device('0')])] });
    expect(readdirSync(dir)).toEqual(['kdp-k8s.device-plugin.example.com-x_test.json']);
    await publisher.publish({ resources: [resource('example.com/x', [])] });
    expect(readdirSync(dir)).toEqual([]);
    await publisher.publish({ resources: [resource('example.com/x', [device('0')])] });
    await publisher.remove();
    expect(readdirSync(dir)).toEqual([]);
  });
});
