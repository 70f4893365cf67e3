import type { AnyResourceDeclaration, ClaimConfigKind } from '@kdp/core';
import { applyClaimConfig, decodePluginConfig, driverConfigKinds, withConfigEnv } from './apply-claim-config';

const kind: ClaimConfigKind = {
  apiVersion: 'x.kdp.dev/v1alpha1',
  kind: 'XConfig',
  schema: { type: 'object', fields: { mode: { type: 'string' } } },
};
const seen: unknown[] = [];
/** Prepare never reads the device source. */
const source = { subscribe: () => () => undefined } as unknown as AnyResourceDeclaration['source'];
const configured: AnyResourceDeclaration = {
  name: 'example.com/x',
  source,
  dra: {
    config: {
      kinds: [kind],
      apply: ({ config, deviceName }) => {
        seen.push(config.map((c) => c['mode']));
        return { env: { X_MODE: String(config[config.length - 1]?.['mode']), [`OWN_${deviceName}`]: '1' } };
      },
    },
  },
};
const plain: AnyResourceDeclaration = { name: 'example.com/y', source };
const device = { id: 'd0', health: 'Healthy' as const };
const entry = (mode: string, requests: string[] = []) => ({
  source: 'FromClaim',
  requests,
  parameters: { apiVersion: kind.apiVersion, kind: kind.kind, mode },
});
const signal = new AbortController().signal;

describe('a claim’s typed configuration at prepare', () => {
  it('hands a device the entries for its request (none named: all), in order, and adds its env', async () => {
    seen.length = 0;
    const applied = await applyClaimConfig(
      configured,
      [entry('a'), entry('b', ['other']), entry('c', ['main'])],
      { request: 'main/sub', device, deviceName: 'd0' },
      signal,
    );
    expect(seen).toEqual([['a', 'c']]);
    expect(applied).toEqual({ env: { X_MODE: 'c', OWN_d0: '1' }, prepared: false });
  });

  it('fails a device whose resource does not take the kind, naming both', async () => {
    await expect(
      applyClaimConfig(plain, [entry('a')], { request: 'main', device, deviceName: 'd0' }, signal),
    ).rejects.toThrow(
      'configuration x.kdp.dev/v1alpha1 XConfig does not apply to device d0 of resource example.com/y (it takes no configuration)',
    );
    expect(await applyClaimConfig(plain, [], { request: 'main', device, deviceName: 'd0' }, signal)).toEqual({
      env: {},
      prepared: false,
    });
  });

  it('decodes with the kinds of the driver’s resources, and refuses all when none takes any', () => {
    const kinds = driverConfigKinds([configured, plain, configured]);
    expect(kinds).toEqual([kind]);
    expect(decodePluginConfig(kinds, 'x.kdp.dev', entry('a').parameters)).toEqual(entry('a').parameters);
    expect(() => decodePluginConfig([], 'x.kdp.dev', entry('a').parameters)).toThrow(
      'driver x.kdp.dev takes no opaque configuration',
    );
  });

  it('replaces a variable of the same name in the device’s CDI edits', () => {
    expect(withConfigEnv({ env: ['A=1', 'B=2'], deviceNodes: [] }, { B: '3' })).toEqual({
      env: ['A=1', 'B=3'],
      deviceNodes: [],
    });
    expect(withConfigEnv(undefined, {})).toBeUndefined();
  });
});
