// `nx run @kdp/plugin-gpu:bench`: gpu-device-plugin serve on an 8-GPU NVIDIA server fixture against
// kubelet-sim: idle CPU and RSS, then change → kubelet latency for each change kind the plugin watches without
// NVML. Flags: --idle DURATION (60s), --rounds N (50).
import { join } from 'node:path';
import type { KubeletSim } from '@kdp/kubelet-sim';
import { runPluginBenchCli, type BenchStep } from '@kdp/kubelet-sim/testing';
import { rootFlags } from '../src/testing/fixture-devices';
import { bindDriver, replugGpu, unbindDriver, unplugGpu } from '../src/testing/hot-plug';
import { buildNvidiaServer, nvidiaServerAddress, nvidiaServerUuid } from '../src/testing/nvidia-server';

const GPUS = 8;
const RESOURCE = 'nvidia.com/gpu';
const fixture = buildNvidiaServer(GPUS);

/** GPU of a round: each round another one, so every GPU takes its turn. */
const gpuOf = (round: number) => round % GPUS;
const isUnhealthy = (sim: KubeletSim, round: number) =>
  sim.resource(RESOURCE)?.unhealthy.includes(nvidiaServerUuid(gpuOf(round))) === true;
const isHealthy = (sim: KubeletSim, round: number) =>
  sim.resource(RESOURCE)?.healthy.includes(nvidiaServerUuid(gpuOf(round))) === true;

/** A down/up pair: `down` makes the round's GPU Unhealthy in the kubelet, `up` Healthy again. */
function pair(
  kinds: readonly [string, string],
  down: (index: number) => void,
  up: (index: number) => void,
  targetMs?: number,
): BenchStep[] {
  let round = 0;
  const target = targetMs !== undefined ? { targetMs } : {};
  return [
    {
      kind: kinds[0],
      ...target,
      apply: (r) => ((round = r), down(gpuOf(r))),
      seen: (sim) => isUnhealthy(sim, round),
    },
    { kind: kinds[1], ...target, apply: (r) => up(gpuOf(r)), seen: (sim) => isHealthy(sim, round) },
  ];
}

const drivers = new Map<number, string>();

void runPluginBenchCli(
  {
    title: `gpu-device-plugin, ${GPUS} NVIDIA GPUs`,
    bundle: join(__dirname, '..', 'main.js'),
    args: (dir) => ['serve', ...rootFlags(fixture), '--device-plugin-dir', dir],
    ready: (sim) => sim.resource(RESOURCE)?.healthy.length === GPUS,
    cycles: [
      // /dev/nvidiaN removed and back: inotify on /dev, so event-driven (target 100 ms).
      pair(
        ['health down (/dev node removed)', 'health up (/dev node back)'],
        (i) => fixture.removeDevNode(`/dev/nvidia${i}`),
        (i) => fixture.addDevNode(`/dev/nvidia${i}`, 195, i),
        100,
      ),
      // The driver link in sysfs: only the change probe sees it.
      pair(
        ['health down (driver unbound)', 'health up (driver bound)'],
        (i) => drivers.set(i, unbindDriver(fixture, nvidiaServerAddress(i, GPUS))),
        (i) => bindDriver(fixture, nvidiaServerAddress(i, GPUS), drivers.get(i) ?? 'nvidia'),
      ),
      // The GPU leaves the PCI bus and /proc/driver/nvidia/gpus (kept, Unhealthy), then comes back.
      pair(
        ['device removed', 'device added'],
        (i) => unplugGpu(fixture, nvidiaServerAddress(i, GPUS)),
        (i) => replugGpu(fixture, nvidiaServerAddress(i, GPUS)),
      ),
    ],
  },
  { cleanup: () => fixture.remove() },
).then((code) => (process.exitCode = code));
