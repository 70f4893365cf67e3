import { constants } from 'node:fs';
import { access, realpath, stat } from 'node:fs/promises';
import { Code, DevicePluginError, silentLogger, type Logger, type PluginDevice } from '@kdp/core';
import { parsePciAddress, type Sysfs } from '@kdp/topology';
import type { ProgrammingRule } from '../config';
import type { FpgaPayload } from '../resources/fpga-payload';
import { parseFpgaId } from '../scan/parse-fpga-id';
import type { IntelPort } from '../scan/scan-intel-ports';
import { outputTail, runProgrammingCommand } from './run-programming-command';

/** What preparing one device did. */
export interface ProgramOutcome {
  readonly device: string;
  readonly action: 'already-loaded' | 'programmed';
  readonly durationMs: number;
}

/** Options of {@link createRegionProgrammer}. */
export interface RegionProgrammerOptions {
  /** The confined sysfs (`ctx.host.sysfs`): `afu_id` is read from it before and after programming. */
  readonly sysfs: Sysfs;
  /** The only directory bitstreams may come from (symlinks are resolved before the check). */
  readonly bitstreamDir: string;
  readonly logger?: Logger;
}

/** Loads the configured AFU into regions before their containers start (PreStartContainer). */
export interface RegionProgrammer {
  /** The bitstream directory it was created for. */
  readonly bitstreamDir: string;
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
  const { sysfs } = options;
  const logger = options.logger ?? silentLogger;
  // The tail of each device's queue (one settled promise per device ID at most).
  const queues = new Map<string, Promise<unknown>>();
  const serialized = <T>(key: string, work: () => Promise<T>): Promise<T> => {
    const next = (queues.get(key) ?? Promise.resolve()).then(work, work);
    queues.set(
      key,
      next.catch(() => undefined),
    );
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
        FAILURE_CODES[outcome.why] ?? Code.Internal,
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
    bitstreamDir: options.bitstreamDir,
    prepare: async (rule, devices, signal) => {
      const outcomes: ProgramOutcome[] = [];
      for (const device of devices)
        outcomes.push(await serialized(device.id, () => prepareOne(rule, device, signal)));
      return outcomes;
    },
  };
}

/** The status a failed command gives the kubelet (anything else is Internal). */
const FAILURE_CODES: Partial<Record<string, Code>> = {
  timeout: Code.DeadlineExceeded,
  aborted: Code.Canceled,
};

function fail(message: string, code: Code = Code.FailedPrecondition): DevicePluginError {
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
