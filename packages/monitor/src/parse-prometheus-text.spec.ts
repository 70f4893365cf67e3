import fc from 'fast-check';
import { parsePrometheusText, parsePrometheusValue } from './parse-prometheus-text';

describe('parsePrometheusText', () => {
  it('reads samples with escaped labels, special values and timestamps, and skips comments', () => {
    const text = [
      '# HELP kdp_device_health Health',
      '# TYPE kdp_device_health gauge',
      'kdp_device_health{resource="nvidia.com/gpu",device="GPU-1"} 1',
      'kdp_device_health{device="a\\"b\\\\c\\nd", resource="x",} 0 1700000000000',
      'up 1e3',
      'nan_metric NaN',
      'inf_metric{} -Inf',
      '',
    ].join('\r\n');
    const { samples, errors } = parsePrometheusText(text);
    expect(errors).toEqual([]);
    expect(samples[0]).toEqual({
      name: 'kdp_device_health',
      labels: { resource: 'nvidia.com/gpu', device: 'GPU-1' },
      value: 1,
    });
    expect(samples[1]).toEqual({
      name: 'kdp_device_health',
      labels: { device: 'a"b\\c\nd', resource: 'x' },
      value: 0,
    });
    expect(samples[2]?.value).toBe(1000);
    expect(samples[3]?.value).toBeNaN();
    expect(samples[4]).toEqual({ name: 'inf_metric', labels: {}, value: Number.NEGATIVE_INFINITY });
  });

  it('reports bad lines by number and keeps the good ones', () => {
    const { samples, errors } = parsePrometheusText(
      'good 1\n{x="1"} 2\nm{x="1} 3\nm{x="1",x="2"} 1\nm 1 2 3\nm abc\nm{a="\\q"} 1\nok 2',
    );
    expect(samples.map((s) => s.name)).toEqual(['good', 'ok']);
    expect(errors).toHaveLength(6);
    expect(errors[0]).toMatch(/^line 2: expected a name/);
    expect(errors[2]).toMatch(/^line 4: duplicate label 'x'/);
  });

  it('treats __proto__ as an ordinary label name', () => {
    const [sample] = parsePrometheusText('m{__proto__="x",constructor="y"} 1').samples;
    expect(Object.keys(sample?.labels ?? {})).toEqual(['__proto__', 'constructor']);
    expect(sample?.labels['__proto__']).toBe('x');
  });

  it('never throws on arbitrary input', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => {
        const result = parsePrometheusText(text);
        expect(Array.isArray(result.samples)).toBe(true);
      }),
      { numRuns: 2_000 },
    );
  });

  it('reads back whatever it is given in the exposition format (round trip)', () => {
    const name = fc.stringMatching(/^[a-zA-Z_:][a-zA-Z0-9_:]{0,20}$/);
    const labelName = fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,10}$/);
    const escape = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            name,
            labels: fc.dictionary(labelName, fc.string({ unit: 'binary', maxLength: 20 }), { maxKeys: 4 }),
            value: fc.oneof(fc.double({ noNaN: true }), fc.integer()),
          }),
          { maxLength: 10 },
        ),
        (samples) => {
          const text = samples
            .map((s) => {
              const labels = Object.entries(s.labels).map(([k, v]) => `${k}="${escape(v)}"`);
              const value = Object.is(s.value, -0)
                ? '-0'
                : Number.isFinite(s.value)
                  ? String(s.value)
                  : s.value > 0
                    ? '+Inf'
                    : '-Inf';
              return `${s.name}{${labels.join(',')}} ${value}`;
            })
            .join('\n');
          const parsed = parsePrometheusText(text);
          expect(parsed.errors).toEqual([]);
          expect(parsed.samples).toEqual(
            samples.map((s) => ({ name: s.name, labels: { ...s.labels }, value: s.value })),
          );
        },
      ),
      { numRuns: 500 },
    );
  });

  it('parses values strictly', () => {
    expect(parsePrometheusValue('+Inf')).toBe(Number.POSITIVE_INFINITY);
    expect(parsePrometheusValue('-1.5e-3')).toBe(-0.0015);
    expect(() => parsePrometheusValue('0x10')).toThrow(/invalid value/);
    expect(() => parsePrometheusValue('')).toThrow(/invalid value/);
  });
});
