// `nx run @kdp/plugin-infiniband:bench`: infiniband-device-plugin serve on an 8-HCA host (ConnectX-6, four per
// NUMA node) against kubelet-sim, default configuration (exclusive `rdma/hca`): idle CPU and RSS, then
// change → kubelet latency for a port going down and up (seen only by the change probe) and an HCA leaving and
// returning (its /dev/infiniband nodes: inotify). Flags: --idle DURATION (60s), --rounds N (50).
import { join } from 'node:path';
import type { KubeletSim } from '@kdp/kubelet-sim';
import { runPluginBenchCli, type BenchStep } from '@kdp/kubelet-sim/testing';
import { createRdmaScaleMachine } from '../src/testing/create-rdma-scale-machine';
import { setPortState, type RdmaDeviceSpec } from '../src/testing/rdma-machine';
import { removeRdmaDevice, restoreRdmaDevice } from '../src/testing/remove-rdma-device';

const HCAS = 8;
const RESOURCE = 'rdma/hca';
const { fixture, hcas } = createRdmaScaleMachine({ hcas: HCAS });

/** The HCA of a round: each round another one, so every HCA takes its turn. */
const hcaOf = (round: number): RdmaDeviceSpec => hcas[round % HCAS] as RdmaDeviceSpec;
const idOf = (round: number): string => hcaOf(round).pci.address;
const state = (sim: KubeletSim) => sim.resource(RESOURCE);

/** A down/up pair on the round's HCA: `down` applied and seen, then `up` applied and seen. */
function pair(
  kinds: readonly [string, string],
  down: { apply(hca: RdmaDeviceSpec): void; seen(sim: KubeletSim, id: string): boolean },
  up: { apply(hca: RdmaDeviceSpec): void; seen(sim: KubeletSim, id: string): boolean },
  targetMs?: number,
): BenchStep[] {
  let round = 0;
  const target = targetMs !== undefined ? { targetMs } : {};
  return [
    {
      kind: kinds[0],
      ...target,
      apply: (r) => ((round = r), down.apply(hcaOf(r))),
      seen: (sim) => down.seen(sim, idOf(round)),
    },
    {
      kind: kinds[1],
      ...target,
      apply: () => up.apply(hcaOf(round)),
      seen: (sim) => up.seen(sim, idOf(round)),
    },
  ];
}

const healthy = (sim: KubeletSim, id: string): boolean => state(sim)?.healthy.includes(id) === true;

void runPluginBenchCli(
  {
    title: `infiniband-device-plugin, ${HCAS} HCAs (exclusive rdma/hca)`,
    bundle: join(__dirname, '..', 'main.js'),
    args: (dir) => [
      'serve',
      ...['--sysfs-root', fixture.root, '--dev-root', fixture.devRoot, '--device-plugin-dir', dir],
    ],
    ready: (sim) => state(sim)?.healthy.length === HCAS,
    cycles: [
      // Port state ACTIVE → DOWN → ACTIVE: a sysfs attribute, which only the change probe sees (target 1 s).
      pair(
        ['health down (port DOWN)', 'health up (port ACTIVE)'],
        {
          apply: (hca) => setPortState(fixture, hca.name, 1, '1: DOWN', '3: Disabled'),
          seen: (sim, id) => state(sim)?.unhealthy.includes(id) === true,
        },
        { apply: (hca) => setPortState(fixture, hca.name, 1, '4: ACTIVE', '5: LinkUp'), seen: healthy },
      ),
      // The HCA leaves (class entries, then its /dev/infiniband nodes) and returns: inotify on /dev (100 ms).
      pair(
        ['device removed', 'device added'],
        {
          apply: (hca) => removeRdmaDevice(fixture, hca),
          seen: (sim, id) => state(sim)?.devices.some((device) => device.ID === id) === false,
        },
        { apply: (hca) => restoreRdmaDevice(fixture, hca), seen: healthy },
        100,
      ),
    ],
  },
  { cleanup: () => fixture.remove() },
).then((code) => (process.exitCode = code));
