import { closeSync, constants, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { createEscapeSentinel, type EscapeSentinel } from './escape-sentinel';
import { ESCAPE_LINK, fuzzDiscoverConfig } from './fuzz-discover-config';
import type { CommandOutcome, FuzzMachine } from './fuzz-discover-scan';
import { createSysfsFixture, type SysfsFixture } from './sysfs-fixture';

/** How a toy configuration loader behaves: right, or with one of the faults the fuzz must catch. */
type Loader = 'right' | 'crashes' | 'no-file' | 'no-field' | 'merges-into-defaults' | 'reads-configured-path';

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;
const fieldName = (key: string): string => (IDENTIFIER.test(key) ? key : `[${JSON.stringify(key)}]`);

/** Deep-merges the way a careless loader does: `__proto__` in the file reaches Object.prototype. */
function carelessMerge(target: Record<string, unknown>, source: Record<string, unknown>): void {
  for (const key in source) {
    const value = source[key];
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      if (typeof target[key] !== 'object' || target[key] === null) target[key] = {};
      carelessMerge(target[key] as Record<string, unknown>, value as Record<string, unknown>);
    } else target[key] = value;
  }
}

/** A toy `discover --config FILE` for `{ name: string, path: "/dev/…" }`, written as JSON. */
function load(machine: FuzzMachine, file: string, loader: Loader): CommandOutcome {
  const refuse = (...lines: string[]): CommandOutcome => ({
    code: 2,
    stdout: '',
    stderr: `toy: ${lines.map((line) => (loader === 'no-file' ? line : `${file}: ${line}`)).join('\n')}\n`,
  });
  const { size } = statSync(file);
  if (size > 4 * 1024 * 1024) return refuse(`file is ${size} bytes, more than the 4194304 accepted`);
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    return refuse(`syntax error: ${(error as Error).message.split('\n')[0] ?? ''}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return refuse('expected an object');
  const config = value as Record<string, unknown>;
  if (loader === 'merges-into-defaults') carelessMerge({ name: 'default' }, config);
  if (loader === 'crashes' && typeof config.name !== 'string')
    return { code: 1, stdout: '', stderr: `${new TypeError('config.name.trim is not a function').stack}\n` };
  const problems = Object.keys(config)
    .filter((key) => key !== 'name' && key !== 'path')
    .map((key) => `${fieldName(key)}: unknown key`);
  if (typeof config.name !== 'string' || config.name === '')
    problems.push('name: expected a non-empty string');
  if (typeof config.path !== 'string' || !config.path.startsWith('/dev/'))
    problems.push('path: expected /dev/…');
  if (problems.length > 0) return refuse(...(loader === 'no-field' ? ['invalid configuration'] : problems));
  if (loader === 'reads-configured-path') {
    try {
      const fd = openSync(
        join(machine.devRoot, (config.path as string).slice(5)),
        constants.O_RDONLY | constants.O_NONBLOCK,
      );
      readSync(fd, Buffer.alloc(64));
      closeSync(fd);
    } catch {
      // missing: nothing read
    }
  }
  return { code: 0, stdout: JSON.stringify({ resources: [], excluded: [], warnings: [] }), stderr: '' };
}

describe('fuzzDiscoverConfig', () => {
  let sentinel: EscapeSentinel;
  let machine: SysfsFixture;
  const prototypeKeys = Object.getOwnPropertyNames(Object.prototype);
  beforeAll(() => {
    sentinel = createEscapeSentinel();
    machine = createSysfsFixture();
    machine.addPciDevice({ address: '0000:3b:00.0' });
  });
  afterAll(() => {
    sentinel.remove();
    machine.remove();
  });
  afterEach(() => {
    const proto = Object.prototype as Record<string, unknown>;
    for (const key of Object.getOwnPropertyNames(proto)) if (!prototypeKeys.includes(key)) delete proto[key];
  });
  const fuzz = (loader: Loader, numRuns = 100, path = '/dev/null') =>
    fuzzDiscoverConfig(fc, {
      template: machine,
      validConfigs: [{ name: 'example', path }],
      sentinel,
      discover: async (copy, file) => load(copy, file, loader),
      seed: 1800,
      numRuns,
    });

  it('passes a loader that refuses with the file and the field, and counts both outcomes', async () => {
    const report = await fuzz('right', 40, `/dev/${ESCAPE_LINK}/bait.fifo`);
    expect(report).toEqual({ runs: 40, accepted: expect.any(Number), rejected: expect.any(Number) });
    expect(report.accepted).toBeGreaterThan(0);
    expect(report.rejected).toBeGreaterThan(0);
  });

  it('catches a crash, a refusal without the file or without the field', async () => {
    await expect(fuzz('crashes')).rejects.toThrow(/discover crashed \(exit 1\):\nTypeError/);
    await expect(fuzz('no-file')).rejects.toThrow(/exit 2 without naming the file/);
    await expect(fuzz('no-field')).rejects.toThrow(/exit 2 without naming a field/);
  });

  it('catches a loader that lets __proto__ pollute Object.prototype', async () => {
    await expect(fuzz('merges-into-defaults')).rejects.toThrow(/Object\.prototype was polluted with/);
  });

  it('catches a loader that follows a configured path out of the root', async () => {
    await expect(fuzz('reads-configured-path', 20, `/dev/${ESCAPE_LINK}/bait.fifo`)).rejects.toThrow(
      /byte\(s\) were read from the sentinel FIFO/,
    );
  });
});
