import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  checkTwoRequestsPod,
  checkUnschedulablePod,
  startPlaygroundDriver,
  type PlaygroundDriver,
  type PlaygroundPodCheckOptions,
} from '@kdp/dra/testing';
import { fpgaPlugin } from './plugin';
import { createFpgaFixture, IF_ID, NLB3, type FpgaFixture } from './testing/create-fpga-fixture';

jest.setTimeout(120_000);

// Issue 27's "Done when" for the FPGA driver: the DRA playground (API server, scheduler with real CEL, kubelets)
// and real kubectl against `fpga-device-plugin serve --mode dra` on two DFL cards.
describe('fpga-device-plugin serve --mode dra in the DRA playground, with real kubectl', () => {
  let fx: FpgaFixture;
  let base: string;
  let setup: PlaygroundDriver;
  // The port on NUMA node 0 for one request; any device for the other (firstAvailable).
  const checks = (): PlaygroundPodCheckOptions => ({
    driver: 'fpga.kdp.dev',
    selector: 'device.attributes["fpga.kdp.dev"].numa == 0',
    devRoot: fx.devRoot,
  });

  beforeAll(async () => {
    fx = createFpgaFixture();
    fx.addDflCard({ address: '0000:81:00.0', index: 0, numaNode: 1, interfaceId: IF_ID, afuId: NLB3 });
    fx.addDflCard({ address: '0000:82:00.0', index: 1, numaNode: 0, interfaceId: IF_ID, afuId: NLB3 });
    base = mkdtempSync(join(tmpdir(), 'kdp-fpg-'));
    setup = await startPlaygroundDriver({
      plugin: fpgaPlugin,
      driver: 'fpga.kdp.dev',
      dir: base,
      flags: ['--sysfs-root', fx.root, '--dev-root', fx.devRoot, '--poll-interval', '1h'],
      devRoot: fx.devRoot,
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
