import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  createLogger,
  createNodeLabelWatch,
  exitWhenFlushed,
  loadKubeAccess,
  writeFileAtomic,
  type KubeApiAccess,
} from '@kdp/core';
import { ExitCode, UsageError, type ProcessSignals, type TextSink } from '@kdp/core/plugin';
import packageJson from '../../package.json';
import { parseConfigManagerFlags, type ConfigManagerFlags } from './config-manager-flags';
import { findProcess } from './find-process';
import { selectConfigName } from './select-config-name';

/** Where `config-manager` talks to the world; every field defaults to the process's own. */
export interface ConfigManagerIo {
  /** The command line after the program name (default `process.argv.slice(2)`). */
  readonly argv?: readonly string[];
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly stdout?: TextSink;
  /** Logs (default process.stderr). */
  readonly stderr?: TextSink;
  /** The API server (default: the pod's service account, in-cluster). */
  readonly kubeApi?: KubeApiAccess;
  /** How often the node is read again (default 5 s). */
  readonly intervalMs?: number;
  /** The shared process namespace's /proc (default `/proc`). */
  readonly procRoot?: string;
  /** Sends a signal (default `process.kill`). */
  readonly kill?: (pid: number, signal: number) => void;
  /** SIGTERM and SIGINT end the sidecar (default `process`). */
  readonly signals?: ProcessSignals;
  /** Receives the exit code (default: the process exits with it). */
  readonly exit?: (code: number) => void;
}

const HELP = `config-manager ${packageJson.version}: NVIDIA k8s-device-plugin's config-manager contract on kdp

Selects this node's configuration by its label (--node-label, default nvidia.com/device-plugin.config) among
the files of --config-file-srcdir, else --default-config, else --fallback-strategies (named, single, empty),
and writes it atomically to --config-file-dst. --oneshot exits after the first write (init container);
otherwise it keeps reading the node and, after each change, sends --signal (default 1, SIGHUP) to the
process --process-to-signal (default nvidia-device-plugin) when --send-signal (default true).
Every flag also reads its environment variable (ONESHOT, NODE_NAME, NODE_LABEL, CONFIG_FILE_SRCDIR,
CONFIG_FILE_DST, DEFAULT_CONFIG, FALLBACK_STRATEGIES, SEND_SIGNAL, SIGNAL, PROCESS_TO_SIGNAL).
KUBECONFIG is refused: the node is read through the pod's service account.
Exit codes: 0 done, 1 failure, 2 usage error.
`;

/** The configuration directory's keys as NVIDIA lists them: regular files, not the ConfigMap's `..` entries. */
async function configFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith('..')) continue;
    // ConfigMap keys are links into ..data: follow them.
    const isFile = entry.isFile() || (entry.isSymbolicLink() && (await isRegular(join(dir, entry.name))));
    if (isFile) names.push(entry.name);
  }
  return names.sort();
}

async function isRegular(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isFile() ?? false;
}

/**
 * NVIDIA's `config-manager` (init container and sidecar of its Helm chart) on kdp's per-node configuration: reads
 * the node's label through the API server, writes the selected file to the destination atomically and, in sidecar
 * mode, signals the plugin after each change. Resolves with the exit code (0, 1 failure, 2 usage).
 */
export async function runConfigManager(io: ConfigManagerIo = {}): Promise<number> {
  const code = await run(io);
  if (io.exit) io.exit(code);
  else await exitWhenFlushed(code);
  return code;
}

async function run(io: ConfigManagerIo): Promise<number> {
  const stdout = io.stdout ?? process.stdout;
  const stderr = io.stderr ?? process.stderr;
  const env = io.env ?? process.env;
  let flags: ConfigManagerFlags;
  try {
    const parsed = parseConfigManagerFlags(io.argv ?? process.argv.slice(2), env);
    if (parsed.command !== 'run') {
      stdout.write(parsed.command === 'help' ? HELP : `config-manager ${packageJson.version}\n`);
      return ExitCode.Ok;
    }
    flags = parsed.flags;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    stderr.write(`config-manager: ${error.message}\n\nRun config-manager --help for the flags.\n`);
    return ExitCode.Usage;
  }
  const logger = createLogger({ name: 'config-manager', destination: stderr });
  let access: KubeApiAccess;
  try {
    access = io.kubeApi ?? (await loadKubeAccess({ env }));
  } catch (error) {
    logger.error({ problem: (error as Error).message }, 'cannot reach the API server');
    return ExitCode.Failure;
  }
  const kill = io.kill ?? ((pid: number, signal: number) => process.kill(pid, signal));
  const update = async (label: string): Promise<void> => {
    const files = await configFiles(flags.srcDir).catch((error: Error) => {
      throw new Error(`cannot list ${flags.srcDir}: ${error.message}`);
    });
    const { name, reason } = selectConfigName(files, label, flags);
    const content = name === '' ? '' : await readFile(join(flags.srcDir, name), 'utf8');
    const current = await readFile(flags.dst, 'utf8').catch(() => undefined);
    if (current === content) {
      logger.info({ config: name, reason }, 'already configured; skipping update');
      return;
    }
    await writeFileAtomic(flags.dst, content);
    logger.info({ config: name, reason, file: flags.dst }, 'updated the configuration');
    if (!flags.sendSignal) return;
    const pid = await findProcess(io.procRoot ?? '/proc', flags.processToSignal, process.pid);
    if (pid === undefined) throw new Error(`no process ${flags.processToSignal} found to signal`);
    kill(pid, flags.signal);
    logger.info({ pid, signal: flags.signal, process: flags.processToSignal }, 'sent the signal');
  };

  return new Promise<number>((resolve) => {
    let last: string | undefined;
    let queue = Promise.resolve();
    const signals = io.signals ?? process;
    // The label watch's timer does not hold the process open: this does, until the run is over.
    const keepAlive = setInterval(() => undefined, 1 << 30);
    const finish = (code: number) => {
      clearInterval(keepAlive);
      watch.stop();
      signals.off('SIGTERM', onStop);
      signals.off('SIGINT', onStop);
      resolve(code);
    };
    const onStop = () => finish(ExitCode.Ok);
    const watch = createNodeLabelWatch({
      access,
      nodeName: flags.nodeName,
      intervalMs: io.intervalMs ?? 5_000,
      onError: (error) => logger.warn({ err: error.message }, 'cannot read the node; retrying'),
      onChange: (labels) => {
        const label = labels[flags.nodeLabel] ?? '';
        if (label === last) return;
        last = label;
        logger.info({ label: flags.nodeLabel, value: label }, 'label change detected');
        queue = queue.then(async () => {
          try {
            await update(label);
            if (flags.oneshot) finish(ExitCode.Ok);
          } catch (error) {
            logger.error({ err: (error as Error).message }, 'cannot update the configuration');
            finish(ExitCode.Failure);
          }
        });
      },
    });
    signals.on('SIGTERM', onStop);
    signals.on('SIGINT', onStop);
    watch.start();
    void watch.refresh();
  });
}
