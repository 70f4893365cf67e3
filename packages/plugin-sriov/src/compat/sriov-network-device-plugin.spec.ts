import { isRefused, type CompatOption } from '@kdp/core/plugin';
import { sriovNetworkDevicePluginCompat as layer } from './sriov-network-device-plugin';

/** Applies one of the layer's flags and returns the flags and configuration keys it set. */
function apply(name: string, value: string): string[] {
  const option = layer.flags?.[name] as CompatOption;
  if (isRefused(option)) throw new Error(`${name} is refused`);
  const set: string[] = [];
  option.apply(value, {
    flag: (flag, flagValue) => set.push(`--${flag}${flagValue === undefined ? '' : ` ${flagValue}`}`),
    setConfig: (path, configValue) => set.push(`${path.join('.')}=${JSON.stringify(configValue)}`),
    appendConfig: (path, configValue) => set.push(`${path.join('.')}=${JSON.stringify(configValue)}`),
  });
  return set;
}

describe('sriovNetworkDevicePluginCompat', () => {
  it("maps sriovdp's own flags onto ours", () => {
    expect(apply('config-file', '/etc/pcidp/node-1')).toEqual(['--config /etc/pcidp/node-1']);
    expect(apply('resource-prefix', 'openshift.io')).toEqual(['--resource-prefix openshift.io']);
    expect(apply('use-cdi', 'true')).toEqual(['--device-list-strategy cdi']);
    expect(apply('use-cdi', 'false')).toEqual([]);
    expect(() => apply('config-file', ' ')).toThrow('must name a file');
  });

  it("maps the image entrypoint's numeric --log-level and --log-dir as entrypoint.sh does", () => {
    expect(apply('log-level', '10')).toEqual(['--log-level trace']);
    expect(apply('log-level', '4')).toEqual(['--log-level debug']);
    expect(apply('log-level', '0')).toEqual(['--log-level info']);
    expect(() => apply('log-level', 'loud')).toThrow('"loud" is not an integer');
    expect(apply('log-dir', 'sriovdp')).toEqual(['--log-dir /var/log/sriovdp']);
    expect(() => apply('log-dir', '../../etc')).toThrow('../../etc leaves /var/log');
  });

  it("accepts glog's flags and refuses those without an equivalent, saying what to do instead", () => {
    expect(apply('v', '6')).toEqual(['--log-level trace']);
    expect(apply('log_dir', '/var/log/sriovdp')).toEqual(['--log-dir /var/log/sriovdp']);
    for (const name of ['log_link', 'logbuflevel', 'vmodule', 'log_backtrace_at']) {
      const option = layer.flags?.[name];
      expect(option !== undefined && isRefused(option) && option.refuse.length > 10).toBe(true);
    }
  });

  it("reads upstream's default configuration path", () => {
    expect(layer.defaultConfigPaths).toEqual(['/etc/pcidp/config.json']);
    expect(layer.configFormat).toBeUndefined();
  });
});
