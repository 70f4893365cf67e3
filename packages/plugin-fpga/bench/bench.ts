// The FPGA plugin's benchmark (`nx run @kdp/plugin-fpga:bench`): `fpga-device-plugin serve` (af mode, the
// default) on a fixture machine with 8 DFL cards (one port each, 4 per NUMA node) against kubelet-sim: idle CPU
// and RSS, then the change → kubelet latency of a port error register set and cleared (sysfs: the change probe,
// every 500 ms) and of a card unbound and bound again (its sysfs region and /dev nodes leave and return: the
// /dev watch). Flags: --idle 60s --rounds 50.
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeletSim } from '@kdp/kubelet-sim';
import { runPluginBenchCli, type BenchStep } from '@kdp/kubelet-sim/testing';
import { afResourceName } from '../src/resources/resource-names';
import { createFpgaFixture, IF_ID, NLB0 } from '../src/testing/create-fpga-fixture';

const PORTS = 8;
const fx = createFpgaFixture();
const cards = Array.from({ length: PORTS }, (_, index) => {
  const address = `0000:${(0x81 + index).toString(16)}:00.0`;
  const numaNode = index < PORTS / 2 ? 0 : 1;
  const { portDir } = fx.addDflCard({ address, index, numaNode, interfaceId: IF_ID, afuId: NLB0 });
  return { index, port: `dfl-port.${index}`, portDir, regionDir: portDir.slice(0, portDir.lastIndexOf('/')) };
});
const stash = join(fx.base, 'unbound');
mkdirSync(stash);
const named = afResourceName(IF_ID, NLB0);
if (!named.ok) throw new Error(named.reason);
const resource = named.name;

const cardOf = (round: number) => cards[round % PORTS] as (typeof cards)[number];
const state = (sim: KubeletSim) => sim.resource(resource);
const devNodes = (index: number): [string, number, number][] => [
  [`/dev/dfl-fme.${index}`, 239, index],
  [`/dev/dfl-port.${index}`, 238, index],
];
/** The class links of a card's region and of its FME's PR region (`addDflCard`'s layout). */
const classLinks = (index: number): string[] =>
  [index, index + 100].map((n) => `class/fpga_region/region${n}`);

const healthDown: BenchStep = {
  kind: 'health down',
  apply: (round) => writeFileSync(join(fx.root, cardOf(round).portDir, 'errors/errors'), '0x1\n'),
  seen: (sim) => state(sim)?.unhealthy.length === 1,
};
const healthUp: BenchStep = {
  kind: 'health up',
  apply: (round) => writeFileSync(join(fx.root, cardOf(round).portDir, 'errors/errors'), '0x0\n'),
  seen: (sim) => state(sim)?.healthy.length === PORTS,
};
// An unbind as the kernel does it: the driver's sysfs tree goes first, then devtmpfs removes the nodes.
const removed: BenchStep = {
  kind: 'device removed',
  targetMs: 100,
  apply: (round) => {
    const { index, regionDir } = cardOf(round);
    for (const link of classLinks(index)) rmSync(join(fx.root, link));
    renameSync(join(fx.root, regionDir), join(stash, `region${index}`));
    for (const [node] of devNodes(index)) fx.removeDevNode(node);
  },
  seen: (sim) => state(sim)?.devices.length === PORTS - 1,
};
const added: BenchStep = {
  kind: 'device added',
  targetMs: 100,
  apply: (round) => {
    const { index, regionDir } = cardOf(round);
    renameSync(join(stash, `region${index}`), join(fx.root, regionDir));
    fx.linkTo(`class/fpga_region/region${index}`, regionDir);
    fx.linkTo(
      `class/fpga_region/region${index + 100}`,
      `${regionDir}/dfl-fme.${index}/dfl-fme-region.${index}/fpga_region/region${index + 100}`,
    );
    for (const [node, major, minor] of devNodes(index)) fx.addDevNode(node, major, minor);
  },
  seen: (sim) => state(sim)?.healthy.length === PORTS,
};

void runPluginBenchCli(
  {
    title: `fpga-device-plugin serve, ${PORTS} ports (${PORTS} DFL cards, af mode)`,
    bundle: join(__dirname, '..', 'main.js'),
    args: (dir) => [
      'serve',
      ...['--sysfs-root', fx.root, '--dev-root', fx.devRoot, '--device-plugin-dir', dir],
      ...['--log-level', 'warn'],
    ],
    ready: (sim) => state(sim)?.registered === true && state(sim)?.healthy.length === PORTS,
    cycles: [
      [healthDown, healthUp],
      [removed, added],
    ],
  },
  { cleanup: () => fx.remove() },
).then((code) => (process.exitCode = code));
