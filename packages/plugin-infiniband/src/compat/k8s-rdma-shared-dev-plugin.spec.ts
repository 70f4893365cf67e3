import { isRefused, type CompatOption } from '@kdp/core/plugin';
import { k8sRdmaSharedDevPluginCompat as layer } from './k8s-rdma-shared-dev-plugin';

/** Applies one of the layer's flags and returns our flags it set. */
function apply(name: string, value: string): string[] {
  const option = layer.flags?.[name] as CompatOption;
  if (isRefused(option)) throw new Error(`${name} is refused`);
  const set: string[] = [];
  option.apply(value, {
    flag: (flag, flagValue) => set.push(`--${flag}${flagValue === undefined ? '' : ` ${flagValue}`}`),
    setConfig: (path) => set.push(path.join('.')),
    appendConfig: (path) => set.push(path.join('.')),
  });
  return set;
}

describe('k8sRdmaSharedDevPluginCompat', () => {
  it("maps k8s-rdma-shared-dp's flags onto ours", () => {
    expect(apply('config-file', '/etc/rdma/config.json')).toEqual(['--config /etc/rdma/config.json']);
    expect(() => apply('config-file', '')).toThrow('must name a file');
    expect(apply('use-cdi', 'true')).toEqual(['--device-list-strategy cdi']);
    expect(apply('use-cdi', 'false')).toEqual([]);
    // -v is upstream's short form of -version, not a log verbosity.
    expect(apply('v', 'true')).toEqual(['--version']);
    expect(apply('version', 'true')).toEqual(['--version']);
    expect(Object.keys(layer.flags ?? {}).sort()).toEqual(['config-file', 'use-cdi', 'v', 'version']);
  });

  it("reads upstream's default configuration path and no environment", () => {
    expect(layer.defaultConfigPaths).toEqual(['/k8s-rdma-shared-dev-plugin/config.json']);
    expect(layer.env).toBeUndefined();
  });
});
