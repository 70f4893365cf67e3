import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PreparedDevice } from '../../dra/dra-events';
import { cdiDevicesIn, checkCdiIds, checkCdiSpec, isQualifiedCdiName } from './cdi-checks';

const device = (...cdiDeviceIds: string[]): PreparedDevice => ({
  driver: 'gpu.example.com',
  requestNames: ['r'],
  poolName: 'p',
  deviceName: 'd',
  cdiDeviceIds,
});

describe('CDI checks', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ks-cdi-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['nvidia.com/gpu=0', true],
    ['k8s.gpu.example.com/gpu=claim-1:gpu_0', true],
    ['gpu=0', false],
    ['nvidia.com/gpu', false],
    ['/gpu=0', false],
    ['nvidia.com/gpu=', false],
    ['nvidia.com/gpu=a/b', false],
  ])('%s qualified: %s', (id, qualified) => {
    expect(isQualifiedCdiName(id)).toBe(qualified);
  });

  it('cdi-ids passes qualified IDs, fails an unqualified one and skips devices without IDs', () => {
    expect(checkCdiIds([device('a.com/x=1')]).status).toBe('pass');
    expect(checkCdiIds([device('a.com/x=1', 'x=1')])).toMatchObject({ status: 'fail' });
    expect(checkCdiIds([device()]).status).toBe('skip');
  });

  it('cdi-spec finds devices in JSON and YAML specs and warns about a missing one', () => {
    writeFileSync(
      join(dir, 'a.json'),
      JSON.stringify({ cdiVersion: '0.6.0', kind: 'a.com/x', devices: [{ name: '1' }] }),
    );
    writeFileSync(
      join(dir, 'b.yaml'),
      'cdiVersion: 0.6.0\nkind: "b.com/y"\ndevices:\n- name: "2"\n  containerEdits:\n    env:\n    - name=3\ncontainerEdits: {}\n',
    );
    writeFileSync(join(dir, 'broken.json'), '{');
    expect([...cdiDevicesIn(dir)].sort()).toEqual(['a.com/x=1', 'b.com/y=2']);
    expect(checkCdiSpec([device('a.com/x=1', 'b.com/y=2')], dir).status).toBe('pass');
    const missing = checkCdiSpec([device('a.com/x=1', 'b.com/y=3')], dir);
    expect(missing.status).toBe('warn');
    expect(missing.reason).toContain(`no spec file in ${dir} defines b.com/y=3;`);
    expect(checkCdiSpec([device('a.com/x=1')], undefined).reason).toMatch(/^not run: no CDI directory given/);
  });
});
