import fc from 'fast-check';
import { describeFpgaIdProblem, parseFpgaId } from './parse-fpga-id';

describe('parseFpgaId', () => {
  it('accepts the kernel’s 32 hex digits, UUIDs with dashes and a 0x prefix', () => {
    expect(parseFpgaId('d8424dc4a4a3c413f89e433683f9040b\n')).toEqual({
      ok: true,
      id: 'd8424dc4a4a3c413f89e433683f9040b',
      allOnes: false,
    });
    expect(parseFpgaId('D8424DC4-A4A3-C413-F89E-433683F9040B')).toMatchObject({
      ok: true,
      id: 'd8424dc4a4a3c413f89e433683f9040b',
    });
    expect(parseFpgaId('0xffffffffffffffffffffffffffffffff')).toMatchObject({ ok: true, allOnes: true });
  });

  it('says why an id cannot be used', () => {
    const empty = parseFpgaId('  \n');
    const missing = parseFpgaId(undefined);
    const short = parseFpgaId('abc');
    expect(
      [empty, missing, short].map((r) => (r.ok ? 'ok' : describeFpgaIdProblem('interface id', r))),
    ).toEqual([
      'interface id is empty',
      'interface id is missing',
      'interface id "abc" is not 32 hex digits',
    ]);
  });

  it('never throws and only returns 32 lower-case hex digits (fuzzed)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (text) => {
        const read = parseFpgaId(text);
        if (read.ok) expect(read.id).toMatch(/^[0-9a-f]{32}$/);
      }),
    );
  });
});
