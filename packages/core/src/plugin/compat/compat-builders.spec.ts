import { compat, useCdiOption } from './compat-builders';
import type { AcceptedCompatOption, CompatTarget } from './compat-layer';

/** Applies an option and records what it set. */
function applied(option: AcceptedCompatOption, value: string): unknown[][] {
  const calls: unknown[][] = [];
  const to: CompatTarget = {
    flag: (...args) => void calls.push(['flag', ...args]),
    setConfig: (...args) => void calls.push(['setConfig', ...args]),
    appendConfig: (...args) => void calls.push(['appendConfig', ...args]),
  };
  option.apply(value, to);
  return calls;
}

describe('compat builders', () => {
  it('toFlag passes a value on to one of our flags, refusing an empty one where it must name something', () => {
    const config = compat.toFlag('config', 'the file', { names: 'a file' });
    expect(config.kind).toBe('value');
    expect(applied(config, '/etc/x.json')).toEqual([['flag', 'config', '/etc/x.json']]);
    expect(() => applied(config, ' ')).toThrow('must name a file');
    expect(applied(compat.toFlag('metrics-address', 'listen'), '')).toEqual([
      ['flag', 'metrics-address', ''],
    ]);
  });

  it('toFlag with whenTrue is a boolean that sets the flag (to a value or as a switch) only when true', () => {
    expect(useCdiOption.kind).toBe('boolean');
    expect(applied(useCdiOption, 'true')).toEqual([['flag', 'device-list-strategy', 'cdi']]);
    expect(applied(useCdiOption, 'false')).toEqual([]);
    const version = compat.toFlag('version', 'print the version', { whenTrue: true });
    expect(applied(version, 'true')).toEqual([['flag', 'version']]);
  });

  it('accept keeps the kind and apply; refuse gives the reason; onlyFalse refuses true', () => {
    const apply = jest.fn();
    expect(compat.accept('boolean', 'd', apply)).toEqual({ kind: 'boolean', description: 'd', apply });
    expect(compat.refuse('value', 'use --x')).toEqual({ kind: 'value', refuse: 'use --x' });
    const onlyFalse = compat.onlyFalse('NVIDIA', 'not here');
    expect(onlyFalse.description).toBe("false only (NVIDIA's default); true is refused: not here");
    expect(applied(onlyFalse, 'false')).toEqual([]);
    expect(() => applied(onlyFalse, 'true')).toThrow('true is not supported: not here');
  });
});
