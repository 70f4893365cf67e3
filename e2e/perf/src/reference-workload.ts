// The regression check's measure of a machine (`machine-speed.ts`), run as a process of its own: the kinds of
// work the benchmarks time (starting Node, compiling code and calling it, building, sorting and serializing
// objects, small-file I/O), in fixed amounts. Changing it changes what every baseline's reference figure means:
// take the baselines again (`npx nx run e2e-perf:update-baseline`).
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInThisContext } from 'node:vm';

/** How much of each kind of work one run does. */
const FUNCTIONS = 6_000;
const RECORDS = 25_000;
const FILES = 400;

/** The source of `count` distinct functions and an array of them, deterministic, as a bundle of many modules. */
export function generatedSource(count: number): string {
  const lines: string[] = [];
  for (let i = 0; i < count; i++)
    lines.push(
      `function f${i}(a, b) { const o = { k${i % 97}: a + ${i}, list: [b, ${i}, 'v${i}'] };` +
        ` for (let j = 0; j < ${(i % 7) + 1}; j++) o.list.push(j * a);` +
        ` return o.list.length + (a > ${i % 13} ? String(o.k${i % 97}).length : 0); }`,
    );
  lines.push(`[${Array.from({ length: count }, (_, i) => `f${i}`).join(',')}]`);
  return lines.join('\n');
}

/** Compiles the generated functions as one script and calls every fourth; returns a checksum. */
function compileAndCall(): number {
  const functions = runInThisContext(generatedSource(FUNCTIONS)) as Array<(a: number, b: number) => number>;
  let sum = 0;
  for (let i = 0; i < functions.length; i += 4)
    sum += (functions[i] as (a: number, b: number) => number)(i, 2);
  return sum;
}

/** Builds records, sorts them, groups them in a Map and round-trips them through JSON; returns a checksum. */
function objects(): number {
  const records = Array.from({ length: RECORDS }, (_, i) => ({
    id: i,
    name: `device-${(i * 7919) % RECORDS}`,
    group: `numa${i % 8}`,
    value: (i * 31) % 1000,
  }));
  records.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const groups = new Map<string, number>();
  for (const record of records) groups.set(record.group, (groups.get(record.group) ?? 0) + record.value);
  const copy = JSON.parse(JSON.stringify(records)) as typeof records;
  return copy.length + groups.size;
}

/** Writes small files into a fresh directory, lists and reads them back, removes them; returns a checksum. */
function smallFiles(): number {
  const dir = mkdtempSync(join(tmpdir(), 'kdp-reference-'));
  try {
    for (let i = 0; i < FILES; i++) writeFileSync(join(dir, `attr${i}`), `0x${i.toString(16)}\n`);
    let bytes = 0;
    for (const name of readdirSync(dir)) bytes += readFileSync(join(dir, name)).length;
    return bytes;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs the workload once; prints how long each part took, in milliseconds, as JSON. */
export function runReferenceWorkload(): Record<string, number> {
  const times: Record<string, number> = {};
  let checksum = 0;
  for (const [name, part] of [
    ['compileMs', compileAndCall],
    ['objectsMs', objects],
    ['filesMs', smallFiles],
  ] as const) {
    const started = performance.now();
    checksum += part();
    times[name] = performance.now() - started;
  }
  if (!(checksum > 0)) throw new Error('reference workload: no result');
  return times;
}

if (require.main === module) process.stdout.write(`${JSON.stringify(runReferenceWorkload())}\n`);
