import fc from 'fast-check';
import { goJson, type GoJsonValue } from './go-json';

describe('goJson', () => {
  it('sorts keys bytewise and escapes as Go encoding/json does', () => {
    expect(goJson({ b: '1', a: { z: '<x>', Y: 'a&b' } })).toBe(
      '{"a":{"Y":"a\\u0026b","z":"\\u003cx\\u003e"},"b":"1"}',
    );
    expect(goJson('\u2028\u2029"\\\n')).toBe('"\\u2028\\u2029\\"\\\\\\n"');
    expect(goJson({})).toBe('{}');
  });

  it('produces JSON that parses back to the same value', () => {
    const value: fc.Arbitrary<GoJsonValue> = fc.letrec<{ node: GoJsonValue }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.string(),
        fc.dictionary(fc.string(), tie('node'), { maxKeys: 4 }) as fc.Arbitrary<GoJsonValue>,
      ),
    })).node;
    fc.assert(fc.property(value, (v) => expect(JSON.parse(goJson(v))).toEqual(v)));
  });
});
