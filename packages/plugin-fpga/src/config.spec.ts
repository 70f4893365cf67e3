import { isConfigError, parseConfigText } from '@kdp/core';
import { fpgaConfigSchema } from './config';
import { IF_ID, NLB0 } from './testing/create-fpga-fixture';

describe('fpgaConfigSchema', () => {
  const parse = (value: unknown) =>
    parseConfigText('fpga.json', JSON.stringify(value), fpgaConfigSchema).value;
  const failure = (value: unknown): string => {
    try {
      parse(value);
    } catch (error) {
      expect(isConfigError(error)).toBe(true);
      return (error as Error).message;
    }
    throw new Error('accepted');
  };
  const rule = (overrides: Record<string, unknown> = {}) => ({
    interfaceId: IF_ID,
    afuId: NLB0,
    command: ['/usr/bin/fpgaconf', '-B', '{bus}', '{bitstream}'],
    bitstream: '/srv/intel.com/fpga/nlb0.gbs',
    ...overrides,
  });

  it('gives every default for an empty file', () => {
    expect(parse({})).toEqual({
      mode: 'af',
      bitstreamDir: '/srv/intel.com/fpga',
      amd: { includeManagement: false },
      programming: [],
    });
  });

  it('reads a full example: IDs lower-cased without dashes, the timeout defaulted', () => {
    expect(
      parse({
        mode: 'region',
        bitstreamDir: '/opt/bitstreams',
        amd: { includeManagement: true },
        programming: [
          rule({
            interfaceId: '69528DB6-EB31-577A-8C36-68F9FAA081F6',
            bitstream: '/opt/bitstreams/nlb0.gbs',
          }),
        ],
      }),
    ).toEqual({
      mode: 'region',
      bitstreamDir: '/opt/bitstreams',
      amd: { includeManagement: true },
      programming: [
        {
          interfaceId: IF_ID,
          afuId: NLB0,
          command: ['/usr/bin/fpgaconf', '-B', '{bus}', '{bitstream}'],
          bitstream: '/opt/bitstreams/nlb0.gbs',
          timeoutMs: 20_000,
        },
      ],
    });
  });

  it.each([
    ['an unknown mode', { mode: 'bitstream' }, 'mode: '],
    [
      'a relative bitstreamDir',
      { bitstreamDir: 'relative/dir' },
      'bitstreamDir: expected an absolute, normalized path',
    ],
    ['a misspelt amd key', { amd: { includeManagment: true } }, 'amd'],
    [
      'an AFU ID that is not hex',
      { mode: 'region', programming: [rule({ afuId: 'xyz' })] },
      'programming[0].afuId: expected 32 hex digits',
    ],
    [
      'a timeout past the kubelet deadline',
      { mode: 'region', programming: [rule({ timeoutMs: 30_000 })] },
      'programming[0].timeoutMs: ',
    ],
    [
      'a program that is not an absolute path',
      { mode: 'region', programming: [rule({ command: ['fpgaconf'] })] },
      'programming[0].command[0]: the program must be an absolute, normalized path',
    ],
    [
      'an unknown placeholder',
      { mode: 'region', programming: [rule({ command: ['/bin/p', '{slot}'] })] },
      'programming[0].command[1]: unknown placeholder {slot}',
    ],
    [
      'a bitstream outside bitstreamDir',
      { mode: 'region', programming: [rule({ bitstream: '/tmp/x.gbs' })] },
      'programming[0].bitstream: must lie inside bitstreamDir /srv/intel.com/fpga',
    ],
    [
      'two rules for one interface',
      { mode: 'region', programming: [rule(), rule()] },
      'programming[1].interfaceId: a second rule for the same interface id',
    ],
    [
      'programming rules in af mode',
      { programming: [rule()] },
      'mode: programming rules need mode region or regiondevel',
    ],
  ])('refuses %s, naming the field (exit 2)', (_, value, message) => {
    expect(failure(value)).toContain(`fpga.json: ${message}`);
  });
});
