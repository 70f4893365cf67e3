import { status } from '@grpc/grpc-js';
import { constants } from 'node:fs';
import { access, realpath, stat } from 'node:fs/promises';
import { DevicePluginError, silentLogger, type Logger, type PluginDevice } from '@kdp/core';
import { createSysfs, parsePciAddress, type Sysfs } from '@kdp/topology';
import type { FpgaPayload } from './build-inventory';
import type { ProgrammingRule } from './fpga-config';
import { parseFpgaId } from './fpga-id';
import type { IntelPort } from './fpga-model';
import { outputTail, runProgrammingCommand } from './run-programming-command';

/** What preparing one device did. */
export interface ProgramOutcome {
  readonly device: string;
  readonly action: 'already-loaded' | 'programmed';
  readonly durationMs: number;
}

/** Options of {@link createRegionProgrammer}. */
export interface RegionProgrammerOptions {
  /** The `--sysfs-root`: `afu_id` is read from here before and after programming. */
  readonly sysfsRoot: string;
  /** The only directory bitstreams may come from (symlinks are resolved before the check). */
  readonly bitstreamDir: string;
  readonly logger?: Logger;
}

/** Loads the configured AFU into regions before their containers start (PreStartContainer). */
export interface RegionProgrammer {
  /**
   * Makes every device carry `rule.afuId`: compares the loaded `afu_id`, runs the rule's command only when it
   * differs, then verifies it. Rejects with a DevicePluginError whose message reads well in a pod event.
   */
  prepare(
    rule: ProgrammingRule,
    devices: readonly PluginDevice<FpgaPayload>[],
    signal?: AbortSignal,
  ): Promise<ProgramOutcome[]>;
}

/** Creates a programmer; programming of one device is serialized, different devices run independently. */
export function createRegionProgrammer(options: RegionProgrammerOptions): RegionProgrammer {
  const sysfs = createSysfs({ root: options.sysfsRoot });
  const logger = options.logger ?? silentLogger;
  const locks = new Map<string, Promise<unknown>>();

  const serialized = <T>(key: string, work: () => Promise<T>): Promise<T> => {
    const previous = locks.get(key) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.catch(() => undefined);
    locks.set(key, settled);
    void settled.then(() => {
      if (locks.get(key) === settled) locks.delete(key);
    });
    return next;
  };

  const prepareOne = async (
    rule: ProgrammingRule,
    device: PluginDevice<FpgaPayload>,
    signal?: AbortSignal,
  ): Promise<ProgramOutcome> => {
    const started = Date.now();
    const ports = device.payload?.ports ?? [];
    if (ports.length === 0) throw fail(`device ${device.id} has no FPGA port to program`);
    const before = await loadedAfus(sysfs, ports);
    if (before.every((id) => id === rule.afuId)) {
      logger.debug({ device: device.id, afuId: rule.afuId }, 'AFU already loaded; not programming');
      return { device: device.id, action: 'already-loaded', durationMs: Date.now() - started };
    }
    const bitstream = await checkedBitstream(rule.bitstream, options.bitstreamDir);
    const program = rule.command[0] as string;
    await checkedProgram(program);
    const args = rule.command.slice(1).map((arg) => fillPlaceholders(arg, rule, bitstream, device, ports));
    logger.info(
      { device: device.id, loaded: before.join(','), afuId: rule.afuId, program, args },
      'programming FPGA region before container start',
    );
    const outcome = await runProgrammingCommand({
      program,
      args,
      timeoutMs: rule.timeoutMs,
      ...(signal ? { signal } : {}),
    });
    if (!outcome.ok) {
      const tail = outputTail(outcome.output);
      throw fail(
        `programming ${device.id} with ${program} ${outcome.message}${tail === '' ? '' : `; output: ${tail}`}`,
        outcome.why === 'timeout'
          ? status.DEADLINE_EXCEEDED
          : outcome.why === 'aborted'
            ? status.CANCELLED
            : status.INTERNAL,
      );
    }
    const after = await loadedAfus(sysfs, ports);
    const wrong = ports.flatMap((port, i) =>
      after[i] === rule.afuId ? [] : [`${port.name} reads ${after[i] || 'nothing'}`],
    );
    if (wrong.length > 0) {
      throw fail(
        `programming ${device.id} with ${program} succeeded but the AFU is still wrong: ${wrong.join(', ')}; expected ${rule.afuId}`,
      );
    }
    logger.info(
      { device: device.id, afuId: rule.afuId, durationMs: outcome.durationMs },
      'FPGA region programmed',
    );
    return { device: device.id, action: 'programmed', durationMs: Date.now() - started };
  };

  return {
    prepare: async (rule, devices, signal) => {
      const outcomes: ProgramOutcome[] = [];
      for (const device of devices)
        outcomes.push(await serialized(device.id, () => prepareOne(rule, device, signal)));
      return outcomes;
    },
  };
}

function fail(message: string, code: status = status.FAILED_PRECONDITION): DevicePluginError {
  return new DevicePluginError(code, `fpga-device-plugin: ${message}`);
}

async function loadedAfus(sysfs: Sysfs, ports: readonly IntelPort[]): Promise<string[]> {
  return Promise.all(
    ports.map(async (port) => {
      const read = parseFpgaId(await sysfs.read(`${port.sysfsPath}/afu_id`));
      return read.ok ? read.id : '';
    }),
  );
}

/** The bitstream's real path, refused unless it is a regular file inside `dir` after resolving symlinks. */
async function checkedBitstream(path: string, dir: string): Promise<string> {
  let real: string;
  let realDir: string;
  try {
    [real, realDir] = await Promise.all([realpath(path), realpath(dir)]);
  } catch (error) {
    throw fail(`bitstream ${path} is not usable: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  if (!real.startsWith(`${realDir}/`))
    throw fail(`bitstream ${path} resolves to ${real}, outside the bitstream directory ${dir}`);
  const info = await stat(real);
  if (!info.isFile()) throw fail(`bitstream ${path} is not a regular file`);
  return real;
}

async function checkedProgram(program: string): Promise<void> {
  try {
    const info = await stat(program);
    if (!info.isFile()) throw new Error('not a regular file');
    await access(program, constants.X_OK);
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw fail(`programming command ${program} cannot be run: ${why}`);
  }
}

/** Fills `{bitstream}`, `{port}`, `{fme}`, `{pciAddress}`, `{segment}`, `{bus}`, `{device}`, `{function}`, `{afuId}`, `{interfaceId}`. */
export function fillPlaceholders(
  arg: string,
  rule: ProgrammingRule,
  bitstream: string,
  device: PluginDevice<FpgaPayload>,
  ports: readonly IntelPort[],
): string {
  const first = ports[0];
  const own = first?.pci?.address;
  // The FME that reconfigures the region sits on the PF, also for a VF's port.
  const card = parsePciAddress(first?.pci?.physfn ?? own ?? '');
  const hex = (n: number | undefined, width: number): string =>
    n === undefined ? '' : n.toString(16).padStart(width, '0');
  const values: Record<string, string> = {
    bitstream,
    port: first?.devNode ?? '',
    fme: first?.fme?.devNode ?? '',
    pciAddress: own ?? '',
    segment: hex(card?.domain, 4),
    bus: hex(card?.bus, 2),
    device: hex(card?.device, 2),
    function: hex(card?.function, 1),
    afuId: rule.afuId,
    interfaceId: device.payload?.interfaceId ?? '',
  };
  return arg.replace(/\{([A-Za-z]+)\}/g, (whole, name: string) => values[name] ?? whole);
}
