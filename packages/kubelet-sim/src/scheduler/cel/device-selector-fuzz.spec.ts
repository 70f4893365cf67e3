import { createDeviceSelectorCompiler } from './device-selector-compiler';

// Fuzz: random token soup never crashes the compiler; what compiles evaluates to a bool or throws an Error.

const tokens = [
  'device',
  '.driver',
  '.attributes',
  '.capacity',
  '.allowMultipleAllocations',
  '["gpu.example.com"]',
  '.model',
  '.memory',
  '==',
  '!=',
  '<',
  '>=',
  '&&',
  '||',
  '!',
  '(',
  ')',
  '[',
  ']',
  ',',
  '"A100"',
  '1',
  '2.5',
  'true',
  'null',
  'semver("1.2.3")',
  'quantity("1Gi")',
  '.compareTo(',
  '.isGreaterThan(',
  '.major()',
  '.asInteger()',
  'size(',
  '.exists(x, x',
  'cel.bind(v, ',
  'in',
  '?',
  ':',
  '+',
  '-',
  '.lowerAscii()',
  '.startsWith("A")',
  'x',
  '{',
  '}',
];

const random = (seed: number): (() => number) => {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
};

describe('createDeviceSelectorCompiler (fuzz)', () => {
  it('answers every input with a result, never an exception, and compiled selectors yield bool or throw', () => {
    const compiler = createDeviceSelectorCompiler();
    const next = random(35);
    const device = {
      driver: 'gpu.example.com',
      attributes: { model: { string: 'A100' }, v: { version: '1.0.0' } },
      capacity: { memory: { value: '1Gi' } },
    };
    let compiled = 0;
    for (let n = 0; n < 3000; n++) {
      const length = 1 + Math.floor(next() * 8);
      const expression = Array.from({ length }, () => tokens[Math.floor(next() * tokens.length)]).join(' ');
      const result = compiler.compile(expression);
      expect(typeof result.ok).toBe('boolean');
      if (!result.ok) {
        expect(result.message).toMatch(
          /^(compilation failed: ERROR: <input>:\d+:\d+: |must evaluate to bool)/,
        );
        continue;
      }
      compiled++;
      let value: unknown;
      try {
        value = result.selector.matches(device);
      } catch (err) {
        value = err;
      }
      expect(typeof value === 'boolean' || value instanceof Error).toBe(true);
    }
    expect(compiled).toBeGreaterThan(5);
  });

  it('types and evaluates random well-formed expressions without crashing', () => {
    const compiler = createDeviceSelectorCompiler();
    const next = random(36);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] as T;
    const terms = [
      'device.driver',
      'device.attributes["gpu.example.com"].model',
      'device.attributes["gpu.example.com"].v',
      'device.attributes["x.example.com"].y',
      'device.capacity["gpu.example.com"].memory',
      '"A100"',
      '1',
      '2.5',
      'semver("1.0.0")',
      'quantity("2Gi")',
      'true',
      'device.allowMultipleAllocations',
      '[1, 2]',
      '{"a": 1}',
    ];
    const ops = ['==', '!=', '<', '>', '+', '&&', '||', 'in'];
    const methods = [
      '.compareTo(semver("0.1.0"))',
      '.isLessThan(quantity("1"))',
      '.size()',
      '.lowerAscii()',
      '.major()',
    ];
    const expr = (depth: number): string => {
      const roll = next();
      if (depth === 0 || roll < 0.3) return pick(terms) + (next() < 0.3 ? pick(methods) : '');
      if (roll < 0.8) return `${expr(depth - 1)} ${pick(ops)} ${expr(depth - 1)}`;
      if (roll < 0.9) return `!(${expr(depth - 1)})`;
      return `${expr(depth - 1)} ? ${expr(depth - 1)} : ${expr(depth - 1)}`;
    };
    const device = {
      driver: 'gpu.example.com',
      attributes: { model: { string: 'A100' }, v: { version: '1.0.0' } },
      capacity: { memory: { value: '1Gi' } },
    };
    const seen = { compiled: 0, rejected: 0, evaluated: 0, threw: 0 };
    for (let n = 0; n < 2000; n++) {
      const result = compiler.compile(expr(3));
      if (!result.ok) {
        seen.rejected++;
        continue;
      }
      seen.compiled++;
      let value: unknown;
      try {
        value = result.selector.matches(device);
      } catch (err) {
        value = err;
      }
      if (typeof value === 'boolean') seen.evaluated++;
      else if (value instanceof Error) seen.threw++;
      else throw new Error(`not a bool: ${String(value)}`);
    }
    expect(Object.values(seen).every((count) => count > 20)).toBe(true);
  });
});
