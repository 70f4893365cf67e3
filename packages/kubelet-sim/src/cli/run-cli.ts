import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeletSocketName } from '@kdp/api';
import { runConformance } from '../conformance/run-conformance';
import { type DraConformanceReady, runDraConformance } from '../conformance/dra/run-dra-conformance';
import type { ConformanceCheck, ConformanceReport } from '../conformance/conformance-check';
import { createKubeletSim } from '../kubelet-sim';
import type { SimEvent } from '../sim-events';
import { createEventFormatter } from './format-event';
import { serveDra } from './serve-dra';
import { untilAborted } from './until-aborted';
import {
  type CheckArgs,
  type DraCheckArgs,
  parseArgs,
  type ServeArgs,
  usage,
  UsageError,
} from './parse-args';

/** Where the CLI writes, and the signal that ends `serve`. */
export interface CliIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  /** Aborting it stops `serve` (main wires SIGINT and SIGTERM to it). */
  readonly signal?: AbortSignal;
  /** What `--version` prints: the package's version, which main reads from package.json at build time. */
  readonly version: string;
}

/** Runs `kubelet-sim` with the arguments after the binary name; resolves with the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let args;
  try {
    args = parseArgs(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.stderr.write(`kubelet-sim: ${err.message}\n\n${usage}`);
    return 2;
  }
  try {
    switch (args.command) {
      case 'help':
        io.stdout.write(usage);
        return 0;
      case 'version':
        io.stdout.write(`kubelet-sim ${io.version}\n`);
        return 0;
      case 'serve':
        return await serve(args, io);
      case 'serve-dra':
        return await serveDra(args, io);
      case 'check':
        return await check(args, io);
      case 'check-dra':
        return await checkDra(args, io);
    }
  } catch (err) {
    io.stderr.write(`kubelet-sim: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

async function serve(args: ServeArgs, io: CliIo): Promise<number> {
  const sim = await createKubeletSim({
    dir: args.dir,
    ...(args.podResourcesSocket === undefined ? {} : { podResourcesSocket: args.podResourcesSocket }),
    ...(args.pluginsRegistryDir === undefined ? {} : { pluginsRegistryDir: args.pluginsRegistryDir }),
    acceptedApis: args.acceptV1alpha ? ['v1beta1', 'v1alpha2'] : ['v1beta1'],
  });
  const banner =
    `kubelet-sim: serving Registration (${args.acceptV1alpha ? 'v1beta1, v1alpha2' : 'v1beta1'}) on ` +
    `${join(args.dir, KubeletSocketName)}` +
    (args.podResourcesSocket === undefined ? '' : `, pod-resources on ${args.podResourcesSocket}`) +
    (args.pluginsRegistryDir === undefined ? '' : `, watching ${args.pluginsRegistryDir}`) +
    '; Ctrl-C stops\n';
  io.stderr.write(banner);
  const formatter = createEventFormatter();
  if (!args.json) io.stdout.write(`${formatter.header}\n`);
  const print = (event: SimEvent): void => {
    if (args.json) {
      if (event.type !== 'checkpoint-written') io.stdout.write(`${JSON.stringify(event)}\n`);
      return;
    }
    for (const line of formatter.format(event)) io.stdout.write(`${line}\n`);
  };
  sim.events.on('event', print);
  try {
    await untilAborted(io.signal);
  } finally {
    sim.events.off('event', print);
    await sim.close();
  }
  return 0;
}

const label: Readonly<Record<ConformanceCheck['status'], string>> = {
  pass: 'PASS',
  fail: 'FAIL',
  warn: 'WARN',
  skip: 'SKIP',
};

async function check(args: CheckArgs, io: CliIo): Promise<number> {
  if (!args.json) {
    io.stdout.write(
      `kubelet-sim check: waiting up to ${args.timeoutSeconds} s for a plugin to register in ${args.dir}` +
        `${args.strict ? ' (strict: a recommended check that warns fails)' : ''}\n`,
    );
  }
  const report = await runConformance({
    dir: args.dir,
    restarts: args.restarts,
    registrationTimeoutMs: args.timeoutSeconds * 1000,
    strict: args.strict,
    ...(args.resource === undefined ? {} : { resource: args.resource }),
    ...(args.pid === undefined ? {} : { pid: args.pid }),
    ...(args.json ? {} : { onCheck: (c: ConformanceCheck) => io.stdout.write(checkLine(c)) }),
  });
  if (args.json) {
    io.stdout.write(`${JSON.stringify(report)}\n`);
  } else {
    io.stdout.write(`${summary(report)}\n`);
  }
  return report.ok ? 0 : 1;
}

/** One live line of a check: `PASS  first-list                     4 device(s), …`. */
const checkLine = (c: ConformanceCheck): string => `${label[c.status]}  ${c.id.padEnd(30)} ${c.reason}\n`;

/** A kubeconfig (JSON, which is YAML too) for a driver to reach `ready.apiServer`, written with mode 0600. */
function writeKubeconfig(file: string, ready: DraConformanceReady): void {
  const { url, token } = ready.apiServer;
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'kubelet-sim', cluster: { server: url } }],
    users: [{ name: 'kubelet-sim', user: token === undefined ? {} : { token } }],
    contexts: [{ name: 'kubelet-sim', context: { cluster: 'kubelet-sim', user: 'kubelet-sim' } }],
    'current-context': 'kubelet-sim',
  };
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
}

async function checkDra(args: DraCheckArgs, io: CliIo): Promise<number> {
  const token = args.tokenFile === undefined ? undefined : readFileSync(args.tokenFile, 'utf8').trim();
  const report = await runDraConformance({
    driver: args.driver,
    pluginsRegistryDir: args.pluginsRegistryDir,
    registrationTimeoutMs: args.timeoutSeconds * 1000,
    publishTimeoutMs: args.publishTimeoutSeconds * 1000,
    strict: args.strict,
    ...(args.apiServer === undefined
      ? {}
      : { apiServer: { url: args.apiServer, ...(token === undefined ? {} : { token }) } }),
    ...(args.apiPort === undefined ? {} : { apiServerPort: args.apiPort }),
    ...(args.nodeName === undefined ? {} : { nodeName: args.nodeName }),
    ...(args.namespace === undefined ? {} : { namespace: args.namespace }),
    ...(args.cdiDir === undefined ? {} : { cdiDir: args.cdiDir }),
    ...(args.dir === undefined ? {} : { dir: args.dir }),
    onReady: (ready) => {
      if (args.kubeconfigOut !== undefined) writeKubeconfig(args.kubeconfigOut, ready);
      // With --json, stdout holds the report only.
      (args.json ? io.stderr : io.stdout).write(
        `kubelet-sim check --dra: API server ${ready.apiServer.url}${args.apiServer === undefined ? ' (built-in)' : ''}` +
          `${args.kubeconfigOut === undefined ? '' : ` (kubeconfig ${args.kubeconfigOut})`}, node ${ready.nodeName}; ` +
          `waiting up to ${args.timeoutSeconds} s for DRA driver ${args.driver} to register in ${args.pluginsRegistryDir}` +
          `${args.strict ? ' (strict: a recommended check that warns fails)' : ''}\n`,
      );
    },
    ...(args.json ? {} : { onCheck: (c: ConformanceCheck) => io.stdout.write(checkLine(c)) }),
  });
  io.stdout.write(`${args.json ? JSON.stringify(report) : summary(report)}\n`);
  return report.ok ? 0 : 1;
}

/** `PASS: 22 checks, 17 passed, 1 warned, 4 skipped, 0 failed (example.com/dev)`; `PASS (strict): …` when strict. */
function summary(report: ConformanceReport): string {
  const count = (s: ConformanceCheck['status']): number => report.checks.filter((c) => c.status === s).length;
  return (
    `${report.ok ? 'PASS' : 'FAIL'}${report.strict ? ' (strict)' : ''}: ${report.checks.length} checks, ` +
    `${count('pass')} passed, ${count('warn')} warned, ${count('skip')} skipped, ${count('fail')} failed` +
    `${report.resource === undefined ? '' : ` (${report.resource})`}`
  );
}
