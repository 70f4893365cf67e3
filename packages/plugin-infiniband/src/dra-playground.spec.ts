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
import type { SysfsFixture } from '@kdp/topology/testing';
import { infinibandPlugin } from './plugin';
import { createRdmaMachine } from './testing/rdma-machine';

jest.setTimeout(120_000);

// Issue 27's "Done when" for the InfiniBand driver: the DRA playground (API server, scheduler with real CEL,
// kubelets) and real kubectl against `infiniband-device-plugin serve --mode dra` on the RDMA fixture.
describe('infiniband-device-plugin serve --mode dra in the DRA playground, with real kubectl', () => {
  let fx: SysfsFixture;
  let base: string;
  let setup: PlaygroundDriver;
  // The Omni-Path HCA by its kernel driver for one request; any device for the other (firstAvailable).
  const checks = (): PlaygroundPodCheckOptions => ({
    driver: 'infiniband.kdp.dev',
    selector: 'device.attributes["infiniband.kdp.dev"].driver == "hfi1"',
    devRoot: fx.devRoot,
  });

  beforeAll(async () => {
    fx = createRdmaMachine();
    base = mkdtempSync(join(tmpdir(), 'kdp-ipg-'));
    setup = await startPlaygroundDriver({
      plugin: infinibandPlugin,
      driver: 'infiniband.kdp.dev',
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
