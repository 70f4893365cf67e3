import { createPlaygroundDriverTest } from '@kdp/dra/testing';
import { gpuPlugin } from './plugin';
import { rootFlags } from './testing/fixture-devices';
import { buildNvidiaMachine } from './testing/machines';

jest.setTimeout(120_000);

// Issue 27's "Done when" for the GPU driver: the DRA playground (API server, scheduler with real CEL, kubelets)
// and real kubectl against `gpu-device-plugin serve --mode dra` on the NVIDIA fixture. One request picks an
// H100 by its model, the other (firstAvailable) any GPU.
const test = createPlaygroundDriverTest({
  plugin: gpuPlugin,
  driver: 'gpu.kdp.dev',
  selector: 'device.attributes["gpu.kdp.dev"].model == "NVIDIA H100 80GB HBM3"',
  machine: () => {
    const fixture = buildNvidiaMachine();
    return {
      flags: [...rootFlags(fixture), '--poll-interval', '1h'],
      devRoot: fixture.devRoot,
      procRoot: fixture.procRoot,
      remove: () => fixture.remove(),
    };
  },
});

describe('gpu-device-plugin serve --mode dra in the DRA playground, with real kubectl', () => {
  beforeAll(() => test.start());
  afterAll(() => test.stop());
  it.each(test.cases)('%s', (_, check) => check());
});
