// The DRA benches, `npx nx run @kdp/dra:bench`: ResourceSlice publication, NodePrepareResources, then health as
// device taints (through the DRA playground and the real kubectl), each figure
// printed next to its target (ok / MISS). Not a test: the numbers depend on the machine and its load.
// KDP_BENCH_SHORT=1: a few seconds in all (fewer runs and rounds; the 64-claim calls left out).
// KDP_BENCH_JSON=FILE: every figure written there as `{ "<metric>": <ms>, … }` (one file for both benches).
// The nx target runs it on the images' Node (tools/image/runtime-node.mjs; the machine's `node` if that fails): the
// publish and taint benches' driver runs in this process, the prepare bench's in a child on this Node
// (`KDP_BENCH_NODE` picks another), so the figures are the images' runtime's. The first line names the Node.
import { loadavg, uptime } from 'node:os';
import { SHORT, writeFigures } from './bench-table';
import { runPrepareBench } from './prepare-bench';
import { runPublishBench } from './publish-bench';
import { runTaintBench } from './taint-bench';

async function main(): Promise<void> {
  const load = (): string =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
  console.log(
    `node ${process.version}, load average ${load()} (up ${Math.round(uptime() / 60)} min)${SHORT ? ', short mode' : ''}\n`,
  );
  const publish = await runPublishBench();
  console.log(`${publish.text}\n`);
  const prepare = await runPrepareBench();
  console.log(`${prepare.text}\n`);
  const taints = await runTaintBench();
  console.log(`${taints.text}\n`);
  console.log(`load average ${load()}`);
  writeFigures({ ...publish.figures, ...prepare.figures, ...taints.figures });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
