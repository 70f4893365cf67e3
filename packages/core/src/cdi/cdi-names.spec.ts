import fc from 'fast-check';
import {
  cdiQualifiedName,
  parseCdiQualifiedName,
  validateCdiClass,
  validateCdiDeviceName,
  validateCdiKind,
  validateCdiVendor,
} from './cdi-names';

describe('CDI names', () => {
  it.each(['example.com', 'k8s.device-plugin.nvidia.com', 'a', 'Vendor_1', 'x-y.z9'])(
    'accepts vendor %s',
    (v) => {
      expect(validateCdiVendor(v)).toEqual({ valid: true });
    },
  );

  it.each([
    ['', 'invalid CDI vendor: empty'],
    ['1abc', 'invalid CDI vendor "1abc": must start with a letter'],
    ['.abc', 'invalid CDI vendor ".abc": must start with a letter'],
    ['abc.', 'invalid CDI vendor "abc.": must end with a letter or digit'],
    ['ab/c', 'invalid CDI vendor "ab/c": character "/" is not allowed'],
    ['ab c', 'invalid CDI vendor "ab c": character " " is not allowed'],
    ['exämple', 'invalid CDI vendor "exämple": character "ä" is not allowed'],
  ])('rejects vendor %j', (v, message) => {
    expect(validateCdiVendor(v)).toEqual({ valid: false, message });
  });

  it('applies the vendor rule to classes', () => {
    expect(validateCdiClass('gpu')).toEqual({ valid: true });
    expect(validateCdiClass('gpu.shared')).toEqual({ valid: true });
    expect(validateCdiClass('-gpu')).toEqual({
      valid: false,
      message: 'invalid CDI class "-gpu": must start with a letter',
    });
  });

  it.each(['0', 'GPU-3f1c', 'card0:1', 'a.b_c-d', 'x'])('accepts device name %s', (n) => {
    expect(validateCdiDeviceName(n)).toEqual({ valid: true });
  });

  it.each([
    ['', 'invalid CDI device name: empty'],
    ['-a', 'invalid CDI device name "-a": must start with a letter or digit'],
    ['a-', 'invalid CDI device name "a-": must end with a letter or digit'],
    ['a/b', 'invalid CDI device name "a/b": character "/" is not allowed'],
    ['a=b', 'invalid CDI device name "a=b": character "=" is not allowed'],
  ])('rejects device name %j', (n, message) => {
    expect(validateCdiDeviceName(n)).toEqual({ valid: false, message });
  });

  it('checks kinds', () => {
    expect(validateCdiKind('example.com/gpu')).toEqual({ valid: true });
    for (const bad of ['gpu', '/gpu', 'example.com/', 'example.com/gpu/x'])
      expect(validateCdiKind(bad).valid).toBe(false);
  });

  it('builds and parses qualified names', () => {
    expect(cdiQualifiedName('example.com', 'gpu', 'GPU-0')).toBe('example.com/gpu=GPU-0');
    expect(() => cdiQualifiedName('example.com', 'gpu', 'a b')).toThrow(
      'invalid CDI device name "a b": character " " is not allowed',
    );
    expect(parseCdiQualifiedName('example.com/gpu=card0:1')).toEqual({
      vendor: 'example.com',
      cdiClass: 'gpu',
      name: 'card0:1',
    });
    expect(parseCdiQualifiedName('example.com/gpu')).toBeUndefined();
    expect(parseCdiQualifiedName('gpu=0')).toBeUndefined();
  });

  it('round-trips every valid name and never throws on garbage (fuzz)', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), (v, c, n) => {
        const ok = validateCdiVendor(v).valid && validateCdiClass(c).valid && validateCdiDeviceName(n).valid;
        if (ok)
          expect(parseCdiQualifiedName(cdiQualifiedName(v, c, n))).toEqual({
            vendor: v,
            cdiClass: c,
            name: n,
          });
        else expect(() => cdiQualifiedName(v, c, n)).toThrow(/^invalid CDI/);
      }),
    );
  });
});
