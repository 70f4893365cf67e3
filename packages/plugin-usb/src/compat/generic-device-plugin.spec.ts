import { isRefused, type CompatOption } from '@kdp/core/plugin';
import { genericDevicePluginCompat, parseGdpDevice } from './generic-device-plugin';

/** The effects of applying options in one synchronous stretch, as the runtime maps one command line. */
function applyAll(options: ReadonlyArray<[CompatOption | undefined, string]>): string[] {
  const seen: string[] = [];
  for (const [option, value] of options) {
    if (option === undefined || isRefused(option)) throw new Error('no accepted option');
    option.apply(value, {
      flag: (name, flagValue) => void seen.push(`--${name} ${flagValue ?? ''}`.trim()),
      setConfig: (path, configValue) => void seen.push(`${path.join('.')}=${JSON.stringify(configValue)}`),
      appendConfig: (path, configValue) => void seen.push(`${path.join('.')}=${JSON.stringify(configValue)}`),
    });
  }
  return seen;
}

const { flags = {}, env = {}, configFormat } = genericDevicePluginCompat;

describe('genericDevicePluginCompat (generic-device-plugin 0.1)', () => {
  it('parses a --device value in JSON or YAML and trims its name; rejects what generic-device-plugin rejects', () => {
    expect(parseGdpDevice('{"name": " fuse ", "groups": [{"paths": [{"path": "/dev/fuse"}]}]}')).toEqual({
      name: 'fuse',
      groups: [{ paths: [{ path: '/dev/fuse' }] }],
    });
    expect(parseGdpDevice('name: video\ngroups:\n  - paths:\n      - path: /dev/video0\n')).toMatchObject({
      name: 'video',
    });
    expect(() => parseGdpDevice('[1, 2]')).toThrow('must be an object');
    expect(() => parseGdpDevice('{"name": "a_b"}')).toThrow('device name "a_b" must match');
    expect(() => parseGdpDevice('{"name": ')).toThrow('not JSON or YAML');
  });

  it('appends each --device flag to the command line’s devices list (the runtime replaces the file’s with it)', () => {
    const device = flags['device'];
    const one = '{"name": "aa", "groups": []}';
    const two = '{"name": "bb", "groups": []}';
    expect(
      applyAll([
        [device, one],
        [device, two],
      ]),
    ).toEqual(['devices={"name":"aa","groups":[]}', 'devices={"name":"bb","groups":[]}']);
  });

  it('maps its other flags and variables onto ours', () => {
    expect(
      applyAll([
        [flags['domain'], 'devic.es'],
        [flags['listen'], ':8080'],
        [flags['plugin-directory'], '/var/lib/kubelet/device-plugins/'],
        [flags['log-level'], 'all'],
        [env['LOG_LEVEL'], 'warn'],
        [env['VERSION'], 'yes'],
        [env['VERSION'], 't'],
      ]),
    ).toEqual([
      'domain="devic.es"',
      '--metrics-address :8080',
      '--device-plugin-dir /var/lib/kubelet/device-plugins/',
      '--log-level trace',
      '--log-level warn',
      '--version',
    ]);
    expect(() => applyAll([[flags['log-level'], 'none']])).toThrow('none is not supported');
    expect(() => applyAll([[flags['log-level'], 'verbose']])).toThrow('log level verbose unknown');
    expect(env['DEVICE'] !== undefined && isRefused(env['DEVICE'])).toBe(true);
  });

  it('detects its configuration files by the keys only it has, and converts devices and domain', () => {
    expect(configFormat?.detect({ devices: [], domain: 'squat.ai' })).toBe(false);
    expect(configFormat?.detect({ resources: [], listen: ':1' })).toBe(false);
    expect(configFormat?.detect({ device: [{ name: 'a' }] })).toBe(true);
    expect(configFormat?.convert({ device: [{ name: 'a' }], domain: 'devic.es' })).toEqual({
      config: { devices: [{ name: 'a' }], domain: 'devic.es' },
      errors: [],
    });
    expect(configFormat?.convert({ devices: [], 'log-level': 'debug' }).errors).toEqual([
      { path: 'log-level', message: 'not read from the file here: give --log-level on the command line' },
    ]);
  });
});
