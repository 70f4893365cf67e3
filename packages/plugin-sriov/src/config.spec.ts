import { parseConfigText } from '@kdp/core';
import { REFUSED_KEYS, sriovConfigSchema } from './config';

describe('sriovConfigSchema', () => {
  const parse = (pool: Record<string, unknown>) =>
    parseConfigText('c.json', JSON.stringify({ resourceList: [pool] }), sriovConfigSchema).value;
  const failure = (pool: Record<string, unknown>): string => {
    try {
      parse(pool);
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error('accepted');
  };

  it("accepts upstream's pKeys as 16-bit hex partition keys and refuses anything else", () => {
    expect(
      parse({ resourceName: 'ib', selectors: { pKeys: ['0x1', '0xABCD', '50'] } }).resourceList[0],
    ).toEqual({
      resourceName: 'ib',
      deviceType: 'netDevice',
      selectors: { pKeys: ['0x1', '0xABCD', '50'] },
    });
    expect(failure({ resourceName: 'ib', selectors: { pKeys: ['0x12345'] } })).toContain(
      'resourceList[0].selectors.pKeys[0]: must be a 16-bit hex partition key such as 0x7fff',
    );
  });

  it.each([
    [
      { selectors: { ddpProfiles: ['GTPv1-C/U IPv4/IPv6 payload'] } },
      'selectors.ddpProfiles',
      REFUSED_KEYS.ddpProfiles,
    ],
    [{ selectors: [{}, { vdpaType: 'vhost' }] }, 'selectors[1].vdpaType', REFUSED_KEYS.vdpaType],
    [
      { deviceType: 'auxNetDevice', selectors: { auxTypes: ['sf'] } },
      'deviceType',
      REFUSED_KEYS.auxNetDevice,
    ],
    [
      { deviceType: 'auxNetDevice', selectors: { auxTypes: ['sf'] } },
      'selectors.auxTypes',
      REFUSED_KEYS.auxTypes,
    ],
    [{ deviceType: 'gpu' }, 'deviceType', '"gpu" is not netDevice or accelerator'],
  ])('refuses %j with exit-2 material naming the field', (pool, field, message) => {
    expect(failure({ resourceName: 'x', ...pool })).toContain(`resourceList[0].${field}: ${message}`);
  });
});
