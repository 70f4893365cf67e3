import fc from 'fast-check';
import { validateResourceName } from '@kdp/api';
import { afResourceName, amdResourceName, regionResourceName } from './resource-names';

describe('resource names', () => {
  it('af: Intel’s compressed form, byte for byte', () => {
    expect(afResourceName('69528db6eb31577a8c3668f9faa081f6', 'd8424dc4a4a3c413f89e433683f9040b')).toEqual({
      ok: true,
      name: 'fpga.intel.com/af-695.d84.aVKNtusxV3qMNmj5-qCB9thCTcSko8QT-J5DNoP5BAs',
    });
  });

  it('region: the full interface id', () => {
    expect(regionResourceName('38d782e3b6125343b9342433e348ac4c')).toEqual({
      ok: true,
      name: 'fpga.intel.com/region-38d782e3b6125343b9342433e348ac4c',
    });
  });

  it('an empty or malformed id gives a reason, never a name', () => {
    expect(regionResourceName('')).toEqual({ ok: false, reason: 'interface id "" is not 32 hex digits' });
    expect(afResourceName('69528db6eb31577a8c3668f9faa081f6', 'xyz')).toEqual({
      ok: false,
      reason: 'afu id "xyz" is not 32 hex digits',
    });
  });

  it('amd: <VBNV>-<timestamp>, and a shell name the kubelet would refuse is reported', () => {
    expect(amdResourceName('xilinx_u200_xdma_201830_1', '1542252769')).toEqual({
      ok: true,
      name: 'amd.com/xilinx_u200_xdma_201830_1-1542252769',
    });
    const long = amdResourceName('x'.repeat(70), '0');
    expect(long.ok).toBe(false);
    expect(amdResourceName('bad shell', '0')).toMatchObject({
      ok: false,
      reason: expect.stringContaining('resource name amd.com/bad shell-0'),
    });
  });

  it('every generated name passes validateResourceName (fuzzed)', () => {
    const hex = fc.stringMatching(/^[0-9a-f]{32}$/);
    fc.assert(
      fc.property(hex, hex, fc.string(), fc.string(), (a, b, vbnv, ts) => {
        for (const result of [
          afResourceName(a, b),
          regionResourceName(a),
          amdResourceName(vbnv, ts),
          regionResourceName(vbnv),
        ]) {
          if (result.ok) expect(validateResourceName(result.name).valid).toBe(true);
          else expect(result.reason.length).toBeGreaterThan(0);
        }
      }),
    );
  });
});
