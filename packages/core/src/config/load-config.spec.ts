import fc from 'fast-check';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { createTempDir, type TempDir } from '@kdp/topology/testing';
import { ConfigError, isConfigError } from './config-error';
import { loadConfig, parseConfigText, validateConfigValue } from './load-config';

const schema = z.object({
  resourceList: z
    .array(
      z.object({
        resourceName: z.string().min(1),
        selectors: z
          .object({ vendors: z.array(z.string().regex(/^[0-9a-f]{4}$/)).default([]) })
          .default({ vendors: [] }),
      }),
    )
    .default([]),
  pollIntervalMs: z.number().int().positive().default(1000),
  mode: z.enum(['shared', 'exclusive']).default('exclusive'),
  id: z.union([z.string(), z.number()]).optional(),
});

let temp: TempDir;
let dir: string;
beforeEach(() => {
  temp = createTempDir('kdp-cfg-');
  dir = temp.path;
});
afterEach(() => temp.remove());

async function write(name: string, text: string): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, text);
  return file;
}

async function messageOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    expect(isConfigError(error)).toBe(true);
    return (error as ConfigError).message;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('loads YAML and fills defaults', async () => {
    const file = await write(
      'c.yaml',
      'resourceList:\n  - resourceName: a\n    selectors: { vendors: ["8086"] }\n',
    );
    const loaded = await loadConfig(file, schema);
    expect(loaded.value).toEqual({
      resourceList: [{ resourceName: 'a', selectors: { vendors: ['8086'] } }],
      pollIntervalMs: 1000,
      mode: 'exclusive',
    });
    expect(loaded.warnings).toEqual([]);
    expect(loaded.file).toBe(file);
  });

  it('loads JSON', async () => {
    const file = await write('c.json', '{"pollIntervalMs": 250, "mode": "shared"}');
    expect((await loadConfig(file, schema)).value).toMatchObject({ pollIntervalMs: 250, mode: 'shared' });
  });

  it('treats an empty file as all defaults', async () => {
    const file = await write('c.yaml', '# nothing here\n');
    expect((await loadConfig(file, schema)).value).toEqual({
      resourceList: [],
      pollIntervalMs: 1000,
      mode: 'exclusive',
    });
  });

  it('names the file, the field path and the problem', async () => {
    const file = await write(
      'c.yaml',
      'resourceList:\n  - resourceName: a\n  - resourceName: b\n  - resourceName: c\n    selectors:\n      vendors: [10DE, 42]\n',
    );
    expect(await messageOf(loadConfig(file, schema))).toBe(
      `${file}: resourceList[2].selectors.vendors[0]: Invalid string: must match pattern /^[0-9a-f]{4}$/\n` +
        `${file}: resourceList[2].selectors.vendors[1]: expected string, received number`,
    );
  });

  it.each([
    ['pollIntervalMs: -5\n', 'pollIntervalMs: Too small: expected number to be >0'],
    ['pollIntervalMs: 1.5\n', 'pollIntervalMs: expected int, received number'],
    ['pollIntervalMs: "100"\n', 'pollIntervalMs: expected number, received string'],
    ['mode: both\n', 'mode: Invalid option: expected one of "shared"|"exclusive"'],
    ['resourceList: {}\n', 'resourceList: expected array, received object'],
    ['resourceList:\n  - {}\n', 'resourceList[0].resourceName: expected string, received undefined'],
    [
      'resourceList:\n  - resourceName: ""\n',
      'resourceList[0].resourceName: Too small: expected string to have >=1 characters',
    ],
    [
      'id: true\n',
      'id: matches none of the accepted forms: expected string, received boolean; or expected number, received boolean',
    ],
    ['- 1\n- 2\n', 'expected object, received array'],
    ['42\n', 'expected object, received number'],
  ])('rejects %j with the exact message', async (text, expected) => {
    const file = await write('c.yaml', text);
    expect(await messageOf(loadConfig(file, schema))).toBe(`${file}: ${expected}`);
  });

  it('reports YAML syntax errors with their position', async () => {
    const file = await write('c.yaml', 'resourceList: [1,\n b: 2\n');
    const message = await messageOf(loadConfig(file, schema));
    expect(message).toMatch(new RegExp(`^${file}: syntax error: .* at line \\d+, column \\d+$`, 'm'));
  });

  it('rejects duplicate keys, several documents and unresolved aliases', async () => {
    const dup = await write('dup.yaml', 'mode: shared\nmode: exclusive\n');
    expect(await messageOf(loadConfig(dup, schema))).toBe(
      `${dup}: syntax error: Map keys must be unique at line 2, column 1`,
    );
    const multi = await write('multi.yaml', 'mode: shared\n---\nmode: exclusive\n');
    expect(await messageOf(loadConfig(multi, schema))).toMatch(
      /^.*multi\.yaml: syntax error: Source contains multiple documents/,
    );
    const alias = await write('alias.yaml', 'mode: *nothing\n');
    expect(await messageOf(loadConfig(alias, schema))).toMatch(/alias\.yaml: syntax error: Unresolved alias/);
  });

  it('rejects an alias bomb without expanding it', async () => {
    const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 12; i++) {
      const prev = String.fromCharCode(96 + i);
      const name = String.fromCharCode(97 + i);
      lines.push(
        `${name}: &${name} [*${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}]`,
      );
    }
    const file = await write('bomb.yaml', lines.join('\n') + '\n');
    expect(await messageOf(loadConfig(file, schema))).toMatch(
      /bomb\.yaml: syntax error: Excessive alias count/,
    );
  });

  it('reports a missing file, a directory, an unreadable and an oversized file', async () => {
    const missing = join(dir, 'nope.yaml');
    expect(await messageOf(loadConfig(missing, schema))).toBe(`${missing}: file not found`);
    const sub = join(dir, 'sub');
    await mkdir(sub);
    expect(await messageOf(loadConfig(sub, schema))).toBe(`${sub}: is a directory, not a file`);
    const big = await write('big.yaml', `mode: shared\n#${'x'.repeat(200)}\n`);
    expect(await messageOf(loadConfig(big, schema, { maxBytes: 100 }))).toBe(
      `${big}: file is 215 bytes, more than the 100 accepted`,
    );
    if (process.getuid?.() !== 0) {
      const locked = await write('locked.yaml', 'mode: shared\n');
      await chmod(locked, 0o000);
      expect(await messageOf(loadConfig(locked, schema))).toBe(`${locked}: permission denied`);
    }
  });

  describe('unknown keys', () => {
    const text =
      'mode: shared\npollIntervalMS: 5\nresourceList:\n  - resourceName: a\n    selector: {}\n    extra: 1\n';

    it('are errors by default, each with its path and a suggestion where one is close', async () => {
      const file = await write('c.yaml', text);
      expect(await messageOf(loadConfig(file, schema))).toBe(
        [
          `${file}: pollIntervalMS: unknown key (did you mean "pollIntervalMs"?)`,
          `${file}: resourceList[0].selector: unknown key (did you mean "selectors"?)`,
          `${file}: resourceList[0].extra: unknown key`,
        ].join('\n'),
      );
    });

    it('are returned as warnings, not silence, under the warn policy', async () => {
      const file = await write('c.yaml', text);
      const loaded = await loadConfig(file, schema, { unknownKeys: 'warn' });
      expect(loaded.value.mode).toBe('shared');
      expect(loaded.warnings).toEqual([
        { path: 'pollIntervalMS', message: 'unknown key (did you mean "pollIntervalMs"?); ignored' },
        { path: 'resourceList[0].selector', message: 'unknown key (did you mean "selectors"?); ignored' },
        { path: 'resourceList[0].extra', message: 'unknown key; ignored' },
      ]);
    });

    it('are dropped under the ignore policy, and kept by loose schemas', async () => {
      const file = await write('c.yaml', text);
      expect((await loadConfig(file, schema, { unknownKeys: 'ignore' })).warnings).toEqual([]);
      const loose = z.looseObject({ mode: z.string() });
      const loaded = await loadConfig(file, loose);
      expect(loaded.warnings).toEqual([]);
      expect(loaded.value).toMatchObject({ mode: 'shared', pollIntervalMS: 5 });
    });

    it('from strict schemas read the same way', async () => {
      const file = await write('c.yaml', 'a: 1\nb: 2\nc: {d: 1}\n');
      const strict = z.strictObject({ a: z.number(), c: z.strictObject({}) });
      expect(await messageOf(loadConfig(file, strict))).toBe(
        `${file}: c.d: unknown key\n${file}: b: unknown key`,
      );
    });

    it('quote keys that are not identifiers', async () => {
      const file = await write('c.yaml', '"example.com/x": 1\n');
      expect(await messageOf(loadConfig(file, schema))).toBe(`${file}: ["example.com/x"]: unknown key`);
    });
  });

  it('validates defaults given as a value', () => {
    expect(validateConfigValue('<defaults>', {}, schema).value.pollIntervalMs).toBe(1000);
    expect(() => validateConfigValue('<defaults>', { mode: 'x' }, schema)).toThrow(
      '<defaults>: mode: Invalid option: expected one of "shared"|"exclusive"',
    );
  });

  it('never throws anything but a ConfigError for arbitrary text (fuzz)', () => {
    const texts = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.json().map((j) => j),
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc
        .array(
          fc.constantFrom(
            'a:',
            ' ',
            '\n',
            '- ',
            '[',
            ']',
            '{',
            '}',
            '&x ',
            '*x',
            '!!str ',
            '"',
            "'",
            ':',
            '#',
            '---',
            '? ',
            'mode',
            'resourceList',
            '1',
            '\t',
            '|',
            '>',
            ',',
            '%YAML 1.2',
            '\u0000',
          ),
          { maxLength: 40 },
        )
        .map((parts) => parts.join('')),
    );
    fc.assert(
      fc.property(texts, (text) => {
        try {
          const loaded = parseConfigText('fuzz.yaml', text, schema, { unknownKeys: 'warn' });
          expect(schema.safeParse(loaded.value).success).toBe(true);
        } catch (error) {
          if (!(error instanceof ConfigError)) throw error;
          expect(error.message.startsWith('fuzz.yaml: ')).toBe(true);
          expect(error.issues.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
