import { config } from 'zod';
import { z } from '../index';
import { interpretSchemas } from './interpreted-schemas';

/** A fresh object schema each time: zod compiles an object schema once, on its first parse. */
const schema = () => z.strictObject({ name: z.string(), count: z.number(), tags: z.array(z.string()) });
const input = { name: 'gpu', count: 2, tags: ['a', 'b'] };

describe('interpretSchemas', () => {
  const original = globalThis.Function;
  let built: number;

  beforeEach(() => {
    built = 0;
    // zod reads the global `Function` when it generates code; counting constructions through it proves none ran.
    globalThis.Function = new Proxy(original, {
      construct(target, args) {
        built++;
        return Reflect.construct(target, args) as object;
      },
    });
  });

  afterEach(() => {
    globalThis.Function = original;
    config({ jitless: false });
  });

  it('generates no code for a parse, which zod does by default', () => {
    expect(schema().parse(input)).toEqual(input);
    // Without the setting zod built a parser from a string (the check that this test can fail).
    expect(built).toBeGreaterThan(0);

    built = 0;
    interpretSchemas();
    const interpreted = schema();
    expect(interpreted.parse(input)).toEqual(input);
    expect(interpreted.parse(input)).toEqual(input);
    expect(built).toBe(0);
  });

  it('still rejects what the schema rejects, with the same issues', () => {
    const bad = { name: 'gpu', count: 'two', tags: ['a', 3], extra: true };
    const compiled = schema().safeParse(bad);
    interpretSchemas();
    const interpreted = schema().safeParse(bad);
    expect(interpreted.success).toBe(false);
    expect(compiled.success).toBe(false);
    expect(interpreted.error?.issues).toEqual(compiled.error?.issues);
    expect(interpreted.error?.issues.map((issue) => issue.path.join('.'))).toEqual(
      expect.arrayContaining(['count', 'tags.1']),
    );
  });
});
