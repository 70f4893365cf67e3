import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeKubeconfig } from '../api-server/write-kubeconfig';
import { createDraPlayground, type DraPlayground } from '../playground/dra-playground';
import type { SimEvent } from '../sim-events';
import type { SchedulerEvent } from '../scheduler/scheduler';
import { createEventFormatter, formatSchedulerEvent } from './format-event';
import type { DraServeArgs } from './parse-args';
import { untilAborted } from './until-aborted';

/** Where `serve --dra` writes, and the signal that ends it. */
export interface ServeDraIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  readonly signal?: AbortSignal;
}

/** The banner: where the API server is, how kubectl reaches it, and where each node's drivers register. */
function banner(args: DraServeArgs, playground: DraPlayground): string {
  const nodes = playground.nodes
    .map(
      (n) =>
        `${n.name} (drivers in ${n.pluginsRegistryDir}${n.podResourcesSocket === undefined ? '' : `, pod-resources on ${n.podResourcesSocket}`})`,
    )
    .join(', ');
  const access =
    args.kubeconfigOut === undefined
      ? 'no kubeconfig written (pass --kubeconfig-out FILE)'
      : `kubectl --kubeconfig ${args.kubeconfigOut}`;
  return (
    `kubelet-sim serve --dra: API server ${playground.url}` +
    `${args.resourceApiVersion === undefined ? '' : ` (resource.k8s.io/${args.resourceApiVersion} only)`}; ${access}; ` +
    `scheduler on; nodes ${nodes}; CDI specs from ${args.cdiDir}, device nodes under ${args.devRoot}; Ctrl-C stops\n`
  );
}

/** The NODE column of the table with several nodes (`scheduler` on the scheduler's lines); none with one node. */
function nodeColumn(names: readonly string[]): (who: string) => string {
  if (names.length < 2) return () => '';
  const width = Math.max('scheduler'.length, ...names.map((n) => n.length));
  return (who) => `${who.padEnd(width)}  `;
}

/** Prints every node's kubelet events (as `serve` does; with several nodes each line names its node). */
function printEvents(
  args: DraServeArgs,
  playground: DraPlayground,
  io: ServeDraIo,
  column: (who: string) => string,
): () => void {
  const formatter = createEventFormatter();
  if (!args.json) io.stdout.write(`${column('NODE')}${formatter.header}\n`);
  const detach = playground.nodes.map((node) => {
    const print = (event: SimEvent): void => {
      if (args.json) {
        if (event.type !== 'checkpoint-written')
          io.stdout.write(`${JSON.stringify({ ...event, node: node.name })}\n`);
        return;
      }
      for (const line of formatter.format(event)) io.stdout.write(`${column(node.name)}${line}\n`);
    };
    node.sim.events.on('event', print);
    return () => node.sim.events.off('event', print);
  });
  return () => {
    for (const off of detach) off();
  };
}

/** `kubelet-sim serve --dra`: runs the DRA playground until the signal aborts; resolves with the exit code. */
export async function serveDra(args: DraServeArgs, io: ServeDraIo): Promise<number> {
  const stateDir = args.dir ?? mkdtempSync(join(tmpdir(), 'kubelet-sim-dra-'));
  let playground: DraPlayground | undefined;
  let column = nodeColumn([]);
  const onSchedulerEvent = (event: SchedulerEvent): void => {
    const at = Date.now();
    const line = args.json
      ? JSON.stringify({ ...event, type: `scheduler-${event.type}`, at })
      : `${column('scheduler')}${formatSchedulerEvent(event, at)}`;
    io.stdout.write(`${line}\n`);
  };
  try {
    playground = await createDraPlayground({
      onSchedulerEvent,
      pluginsRegistryDir: args.pluginsRegistryDir,
      stateDir,
      nodes: args.nodes,
      cdiDir: args.cdiDir,
      devRoot: args.devRoot,
      ...(args.nodeName === undefined ? {} : { nodeName: args.nodeName }),
      ...(args.apiPort === undefined ? {} : { apiPort: args.apiPort }),
      ...(args.podResourcesSocket === undefined ? {} : { podResourcesSocket: args.podResourcesSocket }),
      ...(args.resourceApiVersion === undefined ? {} : { resourceApiVersion: args.resourceApiVersion }),
    });
    if (args.kubeconfigOut !== undefined) {
      await writeKubeconfig(args.kubeconfigOut, {
        server: playground.url,
        token: playground.token,
        ...(playground.caData === undefined ? {} : { caData: playground.caData }),
      });
    }
    io.stderr.write(banner(args, playground));
    column = nodeColumn(playground.nodes.map((n) => n.name));
    const detach = printEvents(args, playground, io, column);
    try {
      await untilAborted(io.signal);
    } finally {
      detach();
    }
    return 0;
  } finally {
    await playground?.close();
    if (args.dir === undefined) rmSync(stateDir, { recursive: true, force: true });
  }
}
