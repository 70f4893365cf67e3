import fc from 'fast-check';
import { applyJsonPatch, type JsonPatchOperation } from './apply-json-patch';

describe('applyJsonPatch', () => {
  const doc = { spec: { args: ['serve'], volumes: [{ name: 'a' }] }, 'we/ird~key': 1 };

  it('adds to the end of a list with "-", at an index, and into a mapping', () => {
    const out = applyJsonPatch(doc, [
      { op: 'add', path: '/spec/args/-', value: '--cdi-dir=/var/run/cdi' },
      { op: 'add', path: '/spec/args/0', value: 'first' },
      { op: 'add', path: '/spec/extra', value: { x: 1 } },
    ]);
    expect(out.spec.args).toEqual(['first', 'serve', '--cdi-dir=/var/run/cdi']);
    expect((out.spec as Record<string, unknown>)['extra']).toEqual({ x: 1 });
  });

  it('replaces, removes and tests, decoding ~1 and ~0', () => {
    const out = applyJsonPatch(doc, [
      { op: 'test', path: '/we~1ird~0key', value: 1 },
      { op: 'replace', path: '/spec/volumes/0/name', value: 'b' },
      { op: 'remove', path: '/spec/args/0' },
    ]);
    expect(out.spec).toEqual({ args: [], volumes: [{ name: 'b' }] });
  });

  it('leaves the input untouched', () => {
    applyJsonPatch(doc, [{ op: 'add', path: '/spec/args/-', value: 'x' }]);
    expect(doc.spec.args).toEqual(['serve']);
  });

  it.each([
    [{ op: 'replace', path: '/spec/missing', value: 1 }, 'no member "missing"'],
    [{ op: 'remove', path: '/spec/args/3' }, 'no element 3'],
    [{ op: 'add', path: '/spec/args/9', value: 1 }, 'cannot insert at 9'],
    [{ op: 'add', path: 'spec', value: 1 }, 'must start with "/"'],
    [{ op: 'test', path: '/spec/args/0', value: 'x' }, 'test failed'],
    [{ op: 'move', path: '/spec' }, 'not supported'],
  ])('refuses %j with a clear error', (operation, message) => {
    expect(() => applyJsonPatch(doc, [operation as JsonPatchOperation])).toThrow(message);
  });

  it('never fails with anything but a clear Error on arbitrary operations', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('add', 'remove', 'replace', 'test', 'copy'),
        fc.array(fc.oneof(fc.constantFrom('spec', 'args', 'volumes', '0', '-', '1', 'name'), fc.string()), {
          maxLength: 4,
        }),
        fc.jsonValue(),
        (op, tokens, value) => {
          const operation = { op, path: tokens.map((t) => `/${t}`).join(''), value } as JsonPatchOperation;
          try {
            applyJsonPatch(doc, [operation]);
          } catch (error) {
            expect(error).toBeInstanceOf(Error);
            expect((error as Error).message).toMatch(/JSON patch/);
          }
        },
      ),
    );
  });
});
