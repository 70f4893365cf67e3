import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PreparedDevice } from '../dra/dra-events';
import { resolveCdiDevices } from './cdi-resolver';
import { cdiDevicesForRequest } from './container-devices';

const device = (name: string, requestNames: string[]): PreparedDevice => ({
  driver: 'gpu.example.com',
  requestNames,
  poolName: 'node-a',
  deviceName: name,
  cdiDeviceIds: [`example.com/gpu=${name}`],
});

describe('cdiDevicesForRequest', () => {
  const devices = [device('a0', ['a']), device('b0', ['b']), device('any', [])];

  it('matches the request name exactly, as the kubelet does', () => {
    expect(cdiDevicesForRequest(devices, 'a')).toEqual(['example.com/gpu=a0', 'example.com/gpu=any']);
    expect(cdiDevicesForRequest(devices, undefined)).toHaveLength(3);
  });

  it('does not strip a prioritized-list subrequest a driver returned unstripped', () => {
    expect(cdiDevicesForRequest([device('s0', ['main/sub'])], 'main')).toEqual([]);
  });
});

describe('resolveCdiDevices', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'ks-cdi-'));
    writeFileSync(
      join(root, 'spec.json'),
      JSON.stringify({
        cdiVersion: '0.6.0',
        kind: 'example.com/gpu',
        containerEdits: { env: ['SHARED=1', 'WHO=spec'] },
        devices: [
          {
            name: 'g0',
            containerEdits: { env: ['WHO=g0'], mounts: [{ containerPath: '/x', hostPath: '/y' }] },
          },
          {
            name: 'g1',
            containerEdits: { deviceNodes: [{ path: '/dev/g1', hostPath: '/dev/../etc/passwd' }] },
          },
        ],
      }),
    );
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('applies spec edits once, then each device’s, a later env entry replacing an earlier one', () => {
    expect(resolveCdiDevices({ cdiDir: root, devRoot: root, ids: ['example.com/gpu=g0'] })).toEqual({
      deviceNodes: [],
      mounts: [{ containerPath: '/x', hostPath: '/y' }],
      env: ['SHARED=1', 'WHO=g0'],
    });
  });

  it('refuses an unknown device and a device node outside /dev with the runtime’s messages', () => {
    expect(() => resolveCdiDevices({ cdiDir: root, devRoot: root, ids: ['example.com/gpu=nope'] })).toThrow(
      'CDI device injection failed: unresolvable CDI devices example.com/gpu=nope',
    );
    expect(() => resolveCdiDevices({ cdiDir: root, devRoot: root, ids: ['example.com/gpu=g1'] })).toThrow(
      /failed to stat CDI host device "\/dev\/..\/etc\/passwd"/,
    );
  });
});
