import { exitWhenFlushed, type Logger } from '@kdp/base';
import { isConfigError } from '../config/config-error';
import type { Program } from './command-line';
import { formatHelp } from './command-line';
import type { AnyPluginDefinition } from './define-plugin';
import { createDevicePluginServeMode } from './device-plugin-serve-mode';
import { ExitCode, UsageError } from './exit-code';
import { startNodeConfigSelection, type NodeConfigSelection } from './node-config-selection';
import type { PluginConfig } from './plugin-config';
import { startPluginProcess, type PluginProcess } from './plugin-process';
import { readCommand, type ReadCommand } from './read-command';
import { runDiscover } from './run-discover';
import type { RunIo, TextSink } from './run-io';
import { serve } from './serve-loop';
import { DEVICE_PLUGIN_MODE, type RunOptions } from './serve-mode';

/** Several plugins in one binary (`kdp-device-plugins`). */
export interface MultiPluginProgram {
  readonly binary: string;
  readonly title: string;
  readonly version: string;
  readonly plugins: readonly AnyPluginDefinition[];
}

/**
 * The whole `main.ts` of a plugin: the contract's command line (`serve`, `discover`, `--version`, `--help`
 * generated from the declared flags), configuration load and reload, scans, resources, metrics, signals and
 * exit codes (0 done, 1 failure, 2 usage or configuration error). Resolves with the exit code.
 */
export function runPlugin(
  definition: AnyPluginDefinition,
  io: RunIo = {},
  options: RunOptions = {},
): Promise<number> {
  const { binary, title, version } = definition;
  return runProgram(
    { binary, title, version, plugins: [definition], multi: false, modes: modesOf(options) },
    io,
  );
}

/**
 * Runs several plugins in one process: `serve --plugins gpu,usb` (default: all), each with its own
 * `--<name>-config` and `--<name>-<flag>`, sharing one device plugin, one metrics port and one set of roots.
 */
export function runPlugins(
  program: MultiPluginProgram,
  io: RunIo = {},
  options: RunOptions = {},
): Promise<number> {
  const names = new Set<string>();
  for (const definition of program.plugins) {
    if (names.has(definition.name))
      throw new Error(`${program.binary}: plugin ${definition.name} is listed twice`);
    names.add(definition.name);
  }
  return runProgram({ ...program, multi: true, modes: modesOf(options) }, io);
}

/** The device-plugin mode, then the modes given (one of the same name replaces it). */
const modesOf = (options: RunOptions): Program['modes'] => ({
  [DEVICE_PLUGIN_MODE]: createDevicePluginServeMode(),
  ...options.modes,
});

async function runProgram(program: Program, io: RunIo): Promise<number> {
  const code = await runCommand(program, io, io.stdout ?? process.stdout, io.stderr ?? process.stderr);
  if (io.exit) {
    io.exit(code);
  } else {
    // Exit now rather than when the event loop drains: the signal listeners are still installed (a late SIGTERM
    // is only logged), where a natural exit would first remove them; and a leaked handle must not keep a
    // terminating pod alive. Only once stdout and stderr are flushed: a piped `discover` would be cut short.
    await exitWhenFlushed(code);
  }
  return code;
}

/** Reads the command line and runs its command; resolves with the exit code. */
async function runCommand(program: Program, io: RunIo, stdout: TextSink, stderr: TextSink): Promise<number> {
  let command: ReadCommand;
  try {
    command = await readCommand(
      program,
      io.argv ?? process.argv.slice(2),
      io.env ?? process.env,
      io.anchorRoot ?? '/',
      io.invokedAs,
    );
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    stderr.write(`${program.binary}: ${error.message}\n\nRun ${program.binary} --help for the flags.\n`);
    return ExitCode.Usage;
  }
  if (command.command === 'help' || command.command === 'version') {
    stdout.write(command.command === 'help' ? formatHelp(program) : `${program.binary} ${program.version}\n`);
    return ExitCode.Ok;
  }
  const configs: PluginConfig[] = [];
  let pluginProcess: PluginProcess;
  try {
    pluginProcess = await startPluginProcess({
      program,
      common: command.common,
      io,
      stderr,
      ...(command.command === 'serve' ? { onHangup: (logger) => reloadOnHangup(configs, logger) } : {}),
    });
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    stderr.write(`${program.binary}: ${error.message}\n`);
    return ExitCode.Usage;
  }
  return runInProcess(program, io, { command, configs, process: pluginProcess, stdout, stderr });
}

/** The parts of a `serve` or `discover` run that {@link runInProcess} shares out. */
interface InProcess {
  readonly command: Extract<ReadCommand, { command: 'serve' | 'discover' }>;
  readonly configs: PluginConfig[];
  readonly process: PluginProcess;
  readonly stdout: TextSink;
  readonly stderr: TextSink;
}

/** `serve` or `discover` inside the started process: exit 2 for a usage or configuration error, 1 for a failure. */
async function runInProcess(program: Program, io: RunIo, run: InProcess): Promise<number> {
  const { command, configs, process: pluginProcess } = run;
  const { common } = command;
  const { logger } = pluginProcess;
  for (const line of command.compatApplied) logger.info({ compat: line }, 'anchor option applied');
  const env = io.env ?? process.env;
  const nodeName = common.nodeName ?? env['NODE_NAME'];
  let selection: NodeConfigSelection | undefined;
  try {
    selection = await startNodeConfigSelection({
      common,
      nodeName,
      env,
      kubeApi: io.kubeApi,
      intervalMs: io.nodeLabelIntervalMs,
      watch: command.command === 'serve',
      logger,
      onChange: () => configs.forEach((config) => void config.watcher?.reload('file')),
    });
    const plugins = command.plugins.map((invocation) => ({
      ...invocation,
      selectFile: selection?.selectFile,
    }));
    if (command.command === 'discover') {
      await runDiscover({
        program,
        common,
        plugins,
        output: command.output,
        process: pluginProcess,
        stdout: run.stdout,
        mode: command.mode,
        nodeName,
      });
      return ExitCode.Ok;
    }
    return await serve({
      program,
      common,
      plugins,
      mode: command.mode,
      process: pluginProcess,
      configs,
      env,
      nodeName,
      configDebounceMs: io.configDebounceMs,
    });
  } catch (error) {
    if (isConfigError(error) || error instanceof UsageError) {
      run.stderr.write(`${program.binary}: ${error.message}\n`);
      return ExitCode.Usage;
    }
    logger.error({ err: error }, `${command.command} failed`);
    run.stderr.write(`${program.binary}: ${error instanceof Error ? error.message : String(error)}\n`);
    return ExitCode.Failure;
  } finally {
    selection?.stop();
    for (const config of configs) config.watcher?.close();
    await pluginProcess.close();
  }
}

/** SIGHUP: every watched configuration file is read again. */
function reloadOnHangup(configs: readonly PluginConfig[], logger: Logger): void {
  const watchers = configs.flatMap((config) => (config.watcher ? [config.watcher] : []));
  if (watchers.length === 0) logger.info({}, 'SIGHUP received; no configuration file to reload');
  for (const watcher of watchers) void watcher.reload('signal');
}
