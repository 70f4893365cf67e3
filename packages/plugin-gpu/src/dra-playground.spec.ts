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
import { gpuPlugin } from './plugin';
import { rootFlags } from './testing/fixture-devices';
import { buildNvidiaMachine } from './testing/machines';

jest.setTimeout(120_000);

// Issue 27's "Done when" for the GPU driver: the DRA playground (API server, scheduler with real CEL, kubelets)
// and real kubectl against `gpu-device-plugin serve --mode dra` on the NVIDIA fixture.
describe('gpu-device-plugin serve --mode dra in the DRA playground, with real kubectl', () => {
  let fixture: SysfsFixture;
  let base: string;
  let setup: PlaygroundDriver;
  let checks: PlaygroundPodCheckOptions;

  beforeAll(async () => {
    fixture = buildNvidiaMachine();
    base = mkdtempSync(join(tmpdir(), 'kdp-gpg-'));
    setup = await startPlaygroundDriver({
      plugin: gpuPlugin,
      driver: 'gpu.kdp.dev',
      dir: base,
      flags: [...rootFlags(fixture), '--poll-interval', '1h'],
      devRoot: fixture.devRoot,
      procRoot: fixture.procRoot,
    });
    // One request picks an H100 by its model; the other (firstAvailable) any GPU.
    checks = {
      driver: 'gpu.kdp.dev',
      selector: 'device.attributes["gpu.kdp.dev"].model == "NVIDIA H100 80GB HBM3"',
      devRoot: fixture.devRoot,
    };
  });
  afterAll(async () => {
    await setup?.stop();
    fixture.remove();
    rmSync(base, { recursive: true, force: true });
  });

  it('runs a pod whose two containers name two requests, each with exactly its devices and env', async () => {
    await checkTwoRequestsPod(setup, checks);
  });

  it('leaves a pod whose claim matches nothing Pending with the scheduler’s reason', async () => {
    await checkUnschedulablePod(setup, checks);
  });
});
