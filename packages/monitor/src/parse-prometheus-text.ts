/** One sample of the Prometheus text exposition format. */
export interface PrometheusSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parsed exposition: the samples that parsed, and one message per line that did not. */
export interface PrometheusParseResult {
  samples: PrometheusSample[];
  errors: string[];
}

const nameStart = /[a-zA-Z_:]/;
const nameChar = /[a-zA-Z0-9_:]/;

class LineReader {
  pos = 0;
  constructor(readonly line: string) {}
  peek(): string | undefined {
    return this.line[this.pos];
  }
  skipSpaces(): void {
    while (this.peek() === ' ' || this.peek() === '\t') this.pos += 1;
  }
  name(first: RegExp): string {
    const start = this.pos;
    const head = this.peek();
    if (head === undefined || !first.test(head)) throw new Error(`expected a name at column ${start + 1}`);
    this.pos += 1;
    for (let c = this.peek(); c !== undefined && nameChar.test(c); c = this.peek()) this.pos += 1;
    return this.line.slice(start, this.pos);
  }
  expect(char: string): void {
    if (this.peek() !== char) throw new Error(`expected '${char}' at column ${this.pos + 1}`);
    this.pos += 1;
  }
  quoted(): string {
    this.expect('"');
    let out = '';
    for (;;) {
      const c = this.peek();
      if (c === undefined) throw new Error('unterminated label value');
      this.pos += 1;
      if (c === '"') return out;
      if (c !== '\\') {
        out += c;
        continue;
      }
      const escaped = this.peek();
      this.pos += 1;
      if (escaped === 'n') out += '\n';
      else if (escaped === '\\' || escaped === '"') out += escaped;
      else throw new Error(`invalid escape '\\${escaped ?? ''}' in label value`);
    }
  }
}

/** Parses one float as the exposition format writes it (also NaN, +Inf, -Inf). */
export function parsePrometheusValue(text: string): number {
  const lower = text.toLowerCase();
  if (lower === 'nan') return Number.NaN;
  if (lower === '+inf' || lower === 'inf') return Number.POSITIVE_INFINITY;
  if (lower === '-inf') return Number.NEGATIVE_INFINITY;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) throw new Error(`invalid value '${text}'`);
  return Number(text);
}

function parseSampleLine(line: string): PrometheusSample {
  const reader = new LineReader(line);
  reader.skipSpaces();
  const name = reader.name(nameStart);
  // No prototype: a label named __proto__ or constructor is just a label.
  const labels: Record<string, string> = Object.create(null) as Record<string, string>;
  reader.skipSpaces();
  if (reader.peek() === '{') {
    reader.pos += 1;
    reader.skipSpaces();
    while (reader.peek() !== '}') {
      const label = reader.name(/[a-zA-Z_]/);
      reader.skipSpaces();
      reader.expect('=');
      reader.skipSpaces();
      if (Object.hasOwn(labels, label)) throw new Error(`duplicate label '${label}'`);
      labels[label] = reader.quoted();
      reader.skipSpaces();
      if (reader.peek() === ',') {
        reader.pos += 1;
        reader.skipSpaces();
      } else if (reader.peek() !== '}') {
        throw new Error(`expected ',' or '}' at column ${reader.pos + 1}`);
      }
    }
    reader.pos += 1;
  }
  const rest = line
    .slice(reader.pos)
    .trim()
    .split(/[ \t]+/);
  if (rest.length < 1 || rest.length > 2 || rest[0] === '')
    throw new Error('expected a value and an optional timestamp');
  const value = parsePrometheusValue(rest[0] ?? '');
  if (rest[1] !== undefined && !/^-?\d+$/.test(rest[1])) throw new Error(`invalid timestamp '${rest[1]}'`);
  return { name, labels, value };
}

/** Parses the Prometheus text format (0.0.4); a bad line is reported in `errors` and skipped, never thrown. */
export function parsePrometheusText(text: string): PrometheusParseResult {
  const samples: PrometheusSample[] = [];
  const errors: string[] = [];
  const lines = text.split('\n');
  lines.forEach((raw, index) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '' || line.trimStart().startsWith('#')) return;
    try {
      samples.push(parseSampleLine(line));
    } catch (error) {
      errors.push(`line ${index + 1}: ${(error as Error).message}`);
    }
  });
  return { samples, errors };
}
