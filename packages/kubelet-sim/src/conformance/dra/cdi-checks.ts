import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PreparedDevice } from '../../dra/dra-events';
import { checkResult } from '../check-catalog';
import type { ConformanceCheck } from '../conformance-check';
import { draCheckCatalog } from './dra-check-catalog';

/** A fully-qualified CDI device name, `vendor.com/class=name`, with CDI's character rules for each part. */
const qualifiedCdiName =
  /^[A-Za-z](?:[A-Za-z0-9._-]*[A-Za-z0-9])?\/[A-Za-z](?:[A-Za-z0-9_-]*[A-Za-z0-9])?=[A-Za-z0-9](?:[A-Za-z0-9_.:-]*[A-Za-z0-9])?$/;

/** Whether `id` is a fully-qualified CDI device name. */
export const isQualifiedCdiName = (id: string): boolean => qualifiedCdiName.test(id);

/** `cdi-ids`: every CDI ID of the prepared devices is fully qualified; a skip when there are none. */
export function checkCdiIds(devices: readonly PreparedDevice[]): ConformanceCheck {
  const { cdiIds } = draCheckCatalog;
  const ids = devices.flatMap((d) => d.cdiDeviceIds);
  if (ids.length === 0) return checkResult(cdiIds, 'skip', 'the prepared devices have no CDI device IDs');
  const bad = ids.filter((id) => !isQualifiedCdiName(id));
  return bad.length === 0
    ? checkResult(cdiIds, 'pass', ids.join(', '))
    : checkResult(
        cdiIds,
        'fail',
        `${bad.map((id) => JSON.stringify(id)).join(', ')} not of the form vendor.com/class=name; ` +
          'the container runtime refuses an unqualified CDI device and the container does not start',
      );
}

/** The CDI devices a spec file defines, as `kind=name`: JSON, or YAML read line by line (kind and device names). */
function specDevices(text: string, yaml: boolean): string[] {
  if (!yaml) {
    const spec = JSON.parse(text) as { kind?: unknown; devices?: Array<{ name?: unknown }> };
    if (typeof spec.kind !== 'string' || !Array.isArray(spec.devices)) return [];
    return spec.devices.map((d) => `${String(spec.kind)}=${String(d.name)}`);
  }
  const unquote = (s: string): string => s.trim().replace(/^["']|["']$/g, '');
  const kind = /^kind:\s*(.+)$/m.exec(text)?.[1];
  if (kind === undefined) return [];
  const names: string[] = [];
  let inDevices = false;
  for (const line of text.split('\n')) {
    if (/^[A-Za-z]/.test(line)) inDevices = /^devices:/.test(line);
    const item = inDevices ? /^(?:- | {2}- )name:\s*(.+)$/.exec(line) : null;
    if (item?.[1] !== undefined) names.push(`${unquote(kind)}=${unquote(item[1])}`);
  }
  return names;
}

/** Every CDI device defined by the spec files directly in `dir` (`*.json`, `*.yaml`, `*.yml`); unreadable files are skipped. */
export function cdiDevicesIn(dir: string): Set<string> {
  const found = new Set<string>();
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return found;
  }
  for (const name of names) {
    const yaml = /\.ya?ml$/.test(name);
    if (!yaml && !name.endsWith('.json')) continue;
    try {
      for (const id of specDevices(readFileSync(join(dir, name), 'utf8'), yaml)) found.add(id);
    } catch {
      // A file being rewritten or not a spec: the runtime skips it too.
    }
  }
  return found;
}

/** `cdi-spec`: every returned CDI ID is defined by a spec file in `cdiDir`; a skip without a directory or IDs. */
export function checkCdiSpec(
  devices: readonly PreparedDevice[],
  cdiDir: string | undefined,
): ConformanceCheck {
  const { cdiSpec } = draCheckCatalog;
  const ids = devices.flatMap((d) => d.cdiDeviceIds).filter(isQualifiedCdiName);
  if (cdiDir === undefined)
    return checkResult(cdiSpec, 'skip', 'not run: no CDI directory given (--cdi-dir)');
  if (ids.length === 0) return checkResult(cdiSpec, 'skip', 'no qualified CDI device IDs to look up');
  const defined = cdiDevicesIn(cdiDir);
  const missing = ids.filter((id) => !defined.has(id));
  return missing.length === 0
    ? checkResult(cdiSpec, 'pass', `${ids.length} CDI device(s) defined in ${cdiDir}`)
    : checkResult(
        cdiSpec,
        'warn',
        `no spec file in ${cdiDir} defines ${missing.join(', ')}; the runtime cannot resolve them ` +
          '(unless the driver writes its specs elsewhere: pass that directory)',
      );
}
