import { chmod, mkdir, readdir, readFile, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '@kdp/base';
import { cdiQualifiedName, validateCdiClass, validateCdiDeviceName, validateCdiVendor } from './cdi-names';
import {
  CDI_SPEC_VERSION,
  checkCdiContainerEdits,
  minimumCdiVersion,
  type CdiContainerEdits,
  type CdiDevice,
  type CdiSpec,
} from './cdi-spec';

/** Options for {@link createCdiSpecWriter}. */
export interface CdiSpecWriterOptions {
  /** The CDI spec directory (`--cdi-dir`, default /var/run/cdi); created 0755 when missing. */
  readonly dir: string;
  /** CDI vendor, e.g. `kdp.example.com`. */
  readonly vendor: string;
  /** CDI class, e.g. `gpu`. */
  readonly class: string;
  /** Tells apart several writers of one kind on one host (e.g. the resource or node); part of the file name. */
  readonly instance?: string;
  /** `cdiVersion` to write: the current version by default, `minimum` for the oldest that can express the spec. */
  readonly cdiVersion?: string;
  /** Spec-level annotations. */
  readonly annotations?: Readonly<Record<string, string>>;
}

/** Result of one {@link CdiSpecWriter.write}. */
export interface CdiWriteResult {
  /** The spec file, or undefined when there were no devices and the file was removed. */
  readonly path: string | undefined;
  /** False when the file already held exactly this spec. */
  readonly changed: boolean;
}

/** Writes and removes the one CDI spec file that belongs to this plugin instance. */
export interface CdiSpecWriter {
  /** `vendor/class`. */
  readonly kind: string;
  /** The spec file this writer owns: `<dir>/kdp-<vendor>-<class>[_<instance>].json`. */
  readonly path: string;
  /** `vendor/class=name`, the string for `ContainerAllocateResponse.cdiDevices[].name`. */
  qualifiedName(deviceName: string): string;
  /** Builds, validates and atomically writes the spec; zero devices removes the file (CDI needs at least one). */
  write(devices: readonly CdiDevice[], containerEdits?: CdiContainerEdits): Promise<CdiWriteResult>;
  /** Removes this writer's spec file and any temp files it left; never touches other files. */
  remove(): Promise<void>;
}

/**
 * Creates the CDI spec writer for one plugin instance. Files are written atomically (a hidden temp file
 * not ending in `.json`, so runtimes never read it, fsynced, mode 0644, renamed over the spec) and named
 * `kdp-<vendor>-<class>[_<instance>].json`, so that they never clobber another plugin's specs.
 */
export function createCdiSpecWriter(options: CdiSpecWriterOptions): CdiSpecWriter {
  const { dir, vendor, class: cdiClass } = options;
  for (const check of [validateCdiVendor(vendor), validateCdiClass(cdiClass)]) {
    if (!check.valid) throw new Error(check.message);
  }
  const instance = options.instance?.replace(/[^A-Za-z0-9_.-]/g, '_');
  const kind = `${vendor}/${cdiClass}`;
  const base = `kdp-${vendor}-${cdiClass}${instance ? `_${instance}` : ''}`;
  const path = join(dir, `${base}.json`);
  const tempPrefix = `.${base}.`;

  const write = async (
    devices: readonly CdiDevice[],
    containerEdits?: CdiContainerEdits,
  ): Promise<CdiWriteResult> => {
    if (devices.length === 0) {
      await remove();
      return { path: undefined, changed: true };
    }
    const text = `${JSON.stringify(buildSpec(devices, containerEdits), null, 2)}\n`;
    const existing = await readFile(path, 'utf8').catch(() => undefined);
    if (existing === text) return { path, changed: false };
    await ensureDir(dir);
    await writeFileAtomic(path, text, { mode: 0o644 });
    return { path, changed: true };
  };

  const buildSpec = (devices: readonly CdiDevice[], containerEdits?: CdiContainerEdits): CdiSpec => {
    const problems: string[] = [];
    const seen = new Set<string>();
    devices.forEach((device, i) => {
      const name = validateCdiDeviceName(device.name);
      if (!name.valid) problems.push(`devices[${i}].name: ${name.message}`);
      if (seen.has(device.name))
        problems.push(`devices[${i}].name: duplicate device name ${JSON.stringify(device.name)}`);
      seen.add(device.name);
      problems.push(...checkCdiContainerEdits(device.containerEdits, `devices[${i}].containerEdits`));
    });
    if (containerEdits) problems.push(...checkCdiContainerEdits(containerEdits, 'containerEdits'));
    if (problems.length > 0) throw new Error(`invalid CDI spec for ${kind}:\n  ${problems.join('\n  ')}`);
    const body = {
      kind,
      ...(options.annotations && Object.keys(options.annotations).length > 0
        ? { annotations: options.annotations }
        : {}),
      devices,
      ...(containerEdits ? { containerEdits } : {}),
    };
    const version =
      options.cdiVersion === 'minimum' ? minimumCdiVersion(body) : (options.cdiVersion ?? CDI_SPEC_VERSION);
    return { cdiVersion: version, ...body };
  };

  const remove = async (): Promise<void> => {
    await unlink(path).catch(ignoreMissing);
    const names = await readdir(dir).catch(() => [] as string[]);
    await Promise.all(
      names
        .filter((n) => n.startsWith(tempPrefix) && n.endsWith('.tmp'))
        .map((n) => unlink(join(dir, n)).catch(ignoreMissing)),
    );
  };

  return {
    kind,
    path,
    qualifiedName: (deviceName) => cdiQualifiedName(vendor, cdiClass, deviceName),
    write,
    remove,
  };
}

async function ensureDir(dir: string): Promise<void> {
  const created = await mkdir(dir, { recursive: true, mode: 0o755 });
  if (created === undefined) return;
  // mkdir's mode passes through the umask; set 0755 exactly on what this call created, and nothing else.
  for (let p = dir; p.length >= created.length; p = dirname(p)) {
    await chmod(p, 0o755);
    if (p === created) break;
  }
}

function ignoreMissing(error: unknown): void {
  if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
}
