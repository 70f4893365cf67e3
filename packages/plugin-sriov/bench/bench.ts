// `nx run @kdp/plugin-sriov:bench`: sriov-device-plugin serve on 8 PFs × 256 VFs (2,048 VFs, three pools)
// against kubelet-sim: idle CPU and RSS, then change → kubelet latency for a PF losing and regaining its carrier
// (a sysfs attribute: only the change probe sees it, then a full scan of all 2,048 VFs) and a VF removed and
// added back through sriov_numvfs. Flags: --idle DURATION (60s), --rounds N (50). The fixture counts uevents
// as a kernel since 4.14 does (the probe reads that count instead of the function and driver lists);
// BENCH_UEVENTS=0: a kernel without it (the probe lists bus/pci/devices and every driver's devices).
// First, in this process: preferVfs per call at 100 to 10,000 VFs. KDP_BENCH_SHORT=1: each preferVfs question
// once, and the plugin part only when flags are given (a quick one: `--idle 2s --rounds 5`, about 40 s);
// KDP_BENCH_JSON=FILE: the preferVfs figures as `{ "<case> p50": ms, "<case> p99": ms, ... }`.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeletSim } from '@kdp/kubelet-sim';
import { runPluginBenchCli, type BenchStep } from '@kdp/kubelet-sim/testing';
import { createSysfsFixture } from '@kdp/topology/testing';
import {
  addLargeSriovNode,
  addSriovVf,
  LARGE_SRIOV_CONFIG,
  removeSriovVf,
  setCarrier,
} from '../src/testing/sriov-node';
import { formatPreferVfsRows, preferVfsRows } from './prefer-vfs-bench';

const short = process.env['KDP_BENCH_SHORT'] === '1';
const preferRows = preferVfsRows(short);
process.stdout.write(`${formatPreferVfsRows(preferRows)}\n`);
const jsonFile = process.env['KDP_BENCH_JSON'];
if (jsonFile !== undefined && jsonFile !== '') {
  const metrics: Record<string, number> = {};
  for (const row of preferRows) {
    metrics[`${row.name} p50`] = row.p50Ms;
    metrics[`${row.name} p99`] = row.p99Ms;
  }
  writeFileSync(jsonFile, `${JSON.stringify(metrics, null, 2)}\n`);
}

const PFS = 8;
const VFS = 256;
const POOLS = ['e810_netdev', 'e810_dpdk', 'e810_rest'].map((name) => `intel.com/${name}`);
const DPDK = 'intel.com/e810_dpdk';

/** The plugin part: `serve` against kubelet-sim, idle CPU and RSS, then change → kubelet latencies. */
function serveBench(): void {
  const fixture = createSysfsFixture();
  const uevents = process.env['BENCH_UEVENTS'] !== '0';
  const pfs = addLargeSriovNode(fixture, { pfs: PFS, vfsPerPf: VFS, uevents });
  const config = join(fixture.base, 'config.json');
  writeFileSync(config, LARGE_SRIOV_CONFIG);

  const states = (sim: KubeletSim) => POOLS.map((name) => sim.resource(name));
  const count = (sim: KubeletSim, of: 'healthy' | 'unhealthy'): number =>
    states(sim).reduce((sum, state) => sum + (state?.[of].length ?? 0), 0);
  /** The PF of a round (each round the next one) and its last VF (vfio-pci). */
  const pfOf = (round: number) => pfs[round % PFS] as (typeof pfs)[number];
  const lastVf = (round: number) => pfOf(round).vfs[VFS - 1] as (typeof pfs)[number]['vfs'][number];

  let round = 0;
  const health: BenchStep[] = [
    {
      kind: 'health down (PF carrier 1 → 0)',
      apply: (r) => {
        round = r;
        setCarrier(fixture, pfOf(r).address, pfOf(r).netdev, false);
      },
      seen: (sim) => count(sim, 'unhealthy') === VFS,
    },
    {
      kind: 'health up (PF carrier 0 → 1)',
      apply: (r) => setCarrier(fixture, pfOf(r).address, pfOf(r).netdev, true),
      seen: (sim) => count(sim, 'unhealthy') === 0,
    },
  ];
  const hotPlug: BenchStep[] = [
    {
      kind: 'device removed (sriov_numvfs 256 → 255)',
      apply: (r) => {
        round = r;
        removeSriovVf(fixture, pfOf(r).address, lastVf(r).address, VFS - 1, VFS - 1);
      },
      seen: (sim) =>
        sim.resource(DPDK)?.devices.some((device) => device.ID === lastVf(round).address) === false,
    },
    {
      kind: 'device added (sriov_numvfs 255 → 256)',
      apply: (r) => addSriovVf(fixture, pfOf(r), lastVf(r), VFS - 1),
      seen: (sim) => sim.resource(DPDK)?.healthy.includes(lastVf(round).address) === true,
    },
  ];

  void runPluginBenchCli(
    {
      title: `sriov-device-plugin, ${PFS} PFs × ${VFS} VFs (${PFS * VFS} VFs in 3 pools), probe by ${uevents ? 'uevent count' : 'directory lists'}`,
      bundle: join(__dirname, '..', 'main.js'),
      args: (dir) => [
        'serve',
        ...['--sysfs-root', fixture.root, '--proc-root', fixture.procRoot, '--dev-root', fixture.devRoot],
        ...['--device-plugin-dir', dir, '--config', config, '--devinfo-dir', join(fixture.base, 'devinfo')],
        // A removed VF leaves the kubelet at once instead of staying Unhealthy for 30 s.
        ...['--vanished-grace', '0'],
      ],
      ready: (sim) => count(sim, 'healthy') === PFS * VFS,
      cycles: [health, hotPlug],
    },
    { cleanup: () => fixture.remove() },
  ).then((code) => (process.exitCode = code));
}

// Short mode (CI's regression check) stops after preferVfs unless flags ask for the plugin part too.
if (!short || process.argv.length > 2) serveBench();
