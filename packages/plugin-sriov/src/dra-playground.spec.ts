import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  checkTwoRequestsPod,
  checkUnschedulablePod,
  startPlaygroundDriver,
  type PlaygroundDriver,
  type PlaygroundPodCheckOptions,
} from '@kdp/dra/testing';
import { createSysfsFixture, type SysfsFixture } from '@kdp/topology/testing';
import { sriovPlugin } from './plugin';
import { addTwoPfNode, UPSTREAM_CONFIG } from './testing/sriov-node';

jest.setTimeout(120_000);

// Issue 27's "Done when" for the SR-IOV driver: the DRA playground (API server, scheduler with real CEL,
// kubelets) and real kubectl against `sriov-device-plugin serve --mode dra` on the two-PF fixture.
describe('sriov-device-plugin serve --mode dra in the DRA playground, with real kubectl', () => {
  let fx: SysfsFixture;
  let base: string;
  let setup: PlaygroundDriver;
  // A vfio-pci VF (DPDK) by its resource name for one request; any device for the other (firstAvailable).
  const checks = (): PlaygroundPodCheckOptions => ({
    driver: 'sriov.kdp.dev',
    selector: 'device.attributes["sriov.kdp.dev"].resource == "intel.com/intel_sriov_dpdk"',
    devRoot: fx.devRoot,
  });

  beforeAll(async () => {
    fx = createSysfsFixture();
    addTwoPfNode(fx);
    base = mkdtempSync(join(tmpdir(), 'kdp-spg-'));
    const config = join(base, 'config.json');
    writeFileSync(config, UPSTREAM_CONFIG);
    setup = await startPlaygroundDriver({
      plugin: sriovPlugin,
      driver: 'sriov.kdp.dev',
      dir: base,
      flags: [
        ...['--sysfs-root', fx.root, '--proc-root', fx.procRoot, '--dev-root', fx.devRoot],
        ...['--poll-interval', '1h', '--config', config, '--devinfo-dir', join(base, 'devinfo')],
      ],
      devRoot: fx.devRoot,
      procRoot: fx.procRoot,
    });
  });
  afterAll(async () => {
    await setup?.stop();
    fx.remove();
    rmSync(base, { recursive: true, force: true });
  });

  it('runs a pod whose two containers name two requests, each with exactly its devices and env', async () => {
    await checkTwoRequestsPod(setup, checks());
  });

  it('leaves a pod whose claim matches nothing Pending with the scheduler’s reason', async () => {
    await checkUnschedulablePod(setup, checks());
  });
});
