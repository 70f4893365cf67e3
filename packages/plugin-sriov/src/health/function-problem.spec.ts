import { testVf } from '../testing/test-vf';
import { functionProblem } from './function-problem';

describe('functionProblem', () => {
  it('is undefined for a bound VF whose PF has carrier', () => {
    expect(functionProblem(testVf())).toBeUndefined();
  });

  it('names a missing driver first', () => {
    expect(functionProblem(testVf({ driver: undefined, pfCarrier: false }))).toBe('no driver is bound');
  });

  it('names the PF without carrier', () => {
    expect(functionProblem(testVf({ pfCarrier: false }))).toBe('PF ens1f0 has no carrier');
  });

  it('ignores carrier for an accelerator and an unknown carrier', () => {
    expect(functionProblem(testVf({ kind: 'accelerator', pfCarrier: false }))).toBeUndefined();
    expect(functionProblem(testVf({ pfCarrier: undefined }))).toBeUndefined();
  });
});
