import { isConfigError, parseConfigText } from '@kdp/core';
import fc from 'fast-check';
import { rdmaConfigSchema } from './config';
import { UPSTREAM_CONFIG_JSON } from './testing/rdma-machine';

const parse = (text: string) =>
  parseConfigText('config.json', text, rdmaConfigSchema, { unknownKeys: 'warn' });

describe('rdmaConfigSchema', () => {
  it('accepts the k8s-rdma-shared-dev-plugin sample unchanged, in shared mode with prefix rdma', () => {
    const { value, warnings } = parse(UPSTREAM_CONFIG_JSON);
    expect(warnings).toEqual([]);
    expect(value.periodicUpdateInterval).toBe(300);
    expect(value.configList).toHaveLength(2);
    expect(value.configList[0]).toEqual({
      resourceName: 'hca_shared_devices_a',
      resourcePrefix: 'rdma',
      rdmaHcaMax: 1000,
      mode: 'shared',
      selectors: { vendors: ['15b3'], deviceIDs: ['1017'], drivers: [], ifNames: [], linkTypes: [] },
    });
    expect(value.configList[1]?.selectors.ifNames).toEqual(['ib0', 'ib1']);
  });

  it('accepts the same configuration as YAML, and the deprecated devices key', () => {
    const yaml = [
      'configList:',
      '  - resourceName: rdma_shared_device_a',
      '    resourcePrefix: nvidia.com',
      '    rdmaHcaMax: 63',
      '    devices: [ib0]',
      '    selectors:',
      '      linkTypes: [InfiniBand]',
    ].join('\n');
    const { value } = parseConfigText('c.yaml', yaml, rdmaConfigSchema, { unknownKeys: 'warn' });
    expect(value.configList[0]).toMatchObject({
      resourcePrefix: 'nvidia.com',
      devices: ['ib0'],
      selectors: { linkTypes: ['infiniband'] },
    });
  });

  it('defaults to one exclusive resource rdma/hca when the file is empty', () => {
    expect(parse('').value.configList).toEqual([
      {
        resourceName: 'hca',
        resourcePrefix: 'rdma',
        mode: 'exclusive',
        selectors: { vendors: [], deviceIDs: [], drivers: [], ifNames: [], linkTypes: [] },
      },
    ]);
  });

  it('warns about keys it does not know instead of failing', () => {
    const { warnings } = parse('{"configList":[{"resourceName":"a","rdmaHcaMax":1,"isRdma":true}]}');
    expect(warnings.map((w) => w.path)).toContain('configList[0].isRdma');
  });

  it.each([
    [
      '{"configList":[{"resourceName":"bad-name","rdmaHcaMax":1}]}',
      'configList[0].resourceName',
      'underscores',
    ],
    ['{"configList":[{"resourceName":"a","rdmaHcaMax":-1}]}', 'configList[0].rdmaHcaMax', '>=0'],
    ['{"configList":[{"resourceName":"a"}]}', 'configList[0].rdmaHcaMax', 'required in shared mode'],
    [
      '{"configList":[{"resourceName":"a","rdmaHcaMax":1},{"resourceName":"a","rdmaHcaMax":2}]}',
      'configList[1].resourceName',
      'already defined by configList[0]',
    ],
    [
      '{"configList":[{"resourceName":"a","rdmaHcaMax":1,"selectors":{"linkTypes":["fddi"]}}]}',
      'configList[0].selectors.linkTypes[0]',
      'infiniband',
    ],
    ['{"configList":[{"resourceName":"a","mode":"private"}]}', 'configList[0].mode', 'exclusive'],
    [
      '{"configList":[{"resourceName":"a","rdmaHcaMax":1,"resourcePrefix":"-bad-"}]}',
      'configList[0].resourcePrefix',
      'not a lowercase DNS-1123 subdomain',
    ],
  ])('rejects %s at %s', (text, path, problem) => {
    let error: unknown;
    try {
      parse(text);
    } catch (caught) {
      error = caught;
    }
    expect(isConfigError(error)).toBe(true);
    expect(String((error as Error).message)).toContain(`config.json: ${path}: `);
    expect(String((error as Error).message).toLowerCase()).toContain(problem.toLowerCase());
  });

  it('either parses or throws a ConfigError for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        try {
          parse(JSON.stringify({ configList: [value] }));
        } catch (error) {
          expect(isConfigError(error)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});
