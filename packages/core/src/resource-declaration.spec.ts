import { createPushSource } from './device-source';
import { checkDeclaration } from './resource-declaration';

const source = createPushSource();

describe('checkDeclaration', () => {
  it("rejects a bad resource name with the kubelet's message", () => {
    expect(() => checkDeclaration({ name: 'gpu', source })).toThrow('the ResourceName "gpu" is invalid');
    expect(() => checkDeclaration({ name: 'a.kubernetes.io/x', source })).toThrow(/is invalid/);
  });

  it('rejects declared-but-missing and implemented-but-undeclared hooks', () => {
    expect(() =>
      checkDeclaration({ name: 'example.com/x', source, options: { preStartRequired: true } }),
    ).toThrow('options.preStartRequired is true but no preStartContainer hook is given');
    expect(() => checkDeclaration({ name: 'example.com/x', source, preferredAllocation: () => [] })).toThrow(
      'a preferredAllocation hook is given but options.getPreferredAllocationAvailable is not true',
    );
  });

  it('accepts matching pairs and a missing source is an error', () => {
    expect(() =>
      checkDeclaration({
        name: 'example.com/x',
        source,
        options: { preStartRequired: true, getPreferredAllocationAvailable: true },
        preStartContainer: () => undefined,
        preferredAllocation: () => [],
      }),
    ).not.toThrow();
    expect(() => checkDeclaration({ name: 'example.com/x' } as never)).toThrow(
      /source must be a device source/,
    );
  });
});
