import { isRefused, type CompatOption } from '@kdp/core/plugin';
import { intelFpgaCompat } from './intel-fpga';
import { xilinxFpgaCompat } from './xilinx-fpga';

/** Runs one option against a target that records our flags and configuration keys as `--flag v` / `key=v`. */
function effects(option: CompatOption | undefined, value: string): string[] {
  if (option === undefined || isRefused(option)) throw new Error('no accepted option');
  const seen: string[] = [];
  option.apply(value, {
    flag: (name, flagValue) => void seen.push(`--${name} ${flagValue ?? ''}`.trim()),
    setConfig: (path, configValue) => void seen.push(`${path.join('.')}=${JSON.stringify(configValue)}`),
    appendConfig: (path, configValue) => void seen.push(`${path.join('.')}=${JSON.stringify(configValue)}`),
  });
  return seen;
}

describe('intelFpgaCompat (intel-fpga-plugin v0.36 flags)', () => {
  const flag = (name: string) => intelFpgaCompat.flags?.[name];

  it('-mode sets the mode key; anything but af, region, regiondevel is an error', () => {
    expect(['af', 'region', 'regiondevel'].map((mode) => effects(flag('mode'), mode))).toEqual([
      ['mode="af"'],
      ['mode="region"'],
      ['mode="regiondevel"'],
    ]);
    expect(() => effects(flag('mode'), 'Region')).toThrow('"Region" is not one of af, region, regiondevel');
  });

  it("-node-name is ours; -kubeconfig and -master only empty; klog's -v a log level", () => {
    expect(effects(flag('node-name'), 'node-7')).toEqual(['--node-name node-7']);
    expect(effects(flag('node-name'), '')).toEqual([]);
    expect(effects(flag('kubeconfig'), '')).toEqual([]);
    expect(() => effects(flag('master'), 'https://api:6443')).toThrow('does not read the fpga.intel.com/');
    expect(effects(flag('v'), '4')).toEqual(['--log-level debug']);
    expect(intelFpgaCompat.env).toBeUndefined();
  });
});

describe('xilinxFpgaCompat (Xilinx k8s-device-plugin 2023.2)', () => {
  const variable = (name: string) => xilinxFpgaCompat.env?.[name];

  it('-log-level error|info|debug is ours; other words are errors', () => {
    expect(effects(xilinxFpgaCompat.flags?.['log-level'], 'error')).toEqual(['--log-level error']);
    expect(() => effects(xilinxFpgaCompat.flags?.['log-level'], 'trace')).toThrow(
      'is not one of error, info, debug',
    );
  });

  it('its variables: the defaults kdp shares have no effect, the others are refused (case-insensitive, as Go EqualFold)', () => {
    expect(effects(variable('VirtualDev'), 'False')).toEqual([]);
    expect(effects(variable('VirtualNum'), '8')).toEqual([]);
    expect(effects(variable('U30NameConvention'), 'exactname')).toEqual([]);
    expect(effects(variable('U30AllocUnit'), 'Device')).toEqual([]);
    expect(effects(variable('DeviceNameCustomize'), 'no')).toEqual([]);
    expect(() => effects(variable('VirtualDev'), 'TRUE')).toThrow(
      'does not advertise a card VirtualNum times',
    );
    expect(() => effects(variable('U30AllocUnit'), 'Card')).toThrow(
      'the two devices of a U30 card are not bundled',
    );
    expect(() => effects(variable('U30NameConvention'), 'CommonName')).toThrow('there is no amd.com/ama_u30');
  });
});
