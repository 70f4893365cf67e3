import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  createPlaygroundDriverTest,
  createRefused,
  installClaimConfigPolicy,
  runClaimPod,
} from '@kdp/dra/testing';
import { gpuConfigKind, timeSliceEnv } from './dra/gpu-claim-config';
import { gpuPlugin } from './plugin';
import { rootFlags } from './testing/fixture-devices';
import { buildNvidiaMachine } from './testing/machines';

jest.setTimeout(120_000);

// Issue 27's "Done when" for the GPU driver: the DRA playground (API server, scheduler with real CEL, kubelets)
// and real kubectl against `gpu-device-plugin serve --mode dra` on the NVIDIA fixture. One request picks an
// H100 by its model, the other (firstAvailable) any GPU.
const H100 = 'device.attributes["gpu.kdp.dev"].model == "NVIDIA H100 80GB HBM3"';
const test = createPlaygroundDriverTest({
  plugin: gpuPlugin,
  driver: 'gpu.kdp.dev',
  selector: H100,
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

beforeAll(() => test.start());
afterAll(() => test.stop());

describe('gpu-device-plugin serve --mode dra in the DRA playground, with real kubectl', () => {
  it.each(test.cases)('%s', (_, check) => check());
});

// Issue 28 item 3: a GpuConfig per claim, refused at `kubectl create` by the policy generated from its schema
// when it is wrong, applied at prepare as CDI edits when it is right.
describe('GpuConfig claim configuration in the DRA playground', () => {
  const gpuConfig = (rest: Record<string, unknown>) => ({
    apiVersion: 'gpu.kdp.dev/v1alpha1',
    kind: 'GpuConfig',
    ...rest,
  });

  it('refuses at kubectl create a claim whose GpuConfig has an unknown field, with the policy’s message', async () => {
    const setup = test.driver();
    await installClaimConfigPolicy(setup, 'gpu.kdp.dev', [gpuConfigKind]);
    const refused = await createRefused(setup, {
      name: 'typo',
      driver: 'gpu.kdp.dev',
      parameters: gpuConfig({ sharing: { timeSlicing: { intervl: 'Short' } } }),
    });
    // kubectl's rendering of a 422 with one cause, as for kube-apiserver's own denials.
    expect(refused).toContain(
      'The resourceclaims "typo" is invalid: : ValidatingAdmissionPolicy \'gpu.kdp.dev-claim-config\' ' +
        "with binding 'gpu.kdp.dev-claim-config' denied request: " +
        'spec.devices.config[*].opaque.parameters.sharing.timeSlicing.intervl: unknown field',
    );
    const replicas = await createRefused(setup, {
      name: 'replicas',
      driver: 'gpu.kdp.dev',
      parameters: gpuConfig({ sharing: { timeSlicing: { replicas: 4 } } }),
    });
    expect(replicas).toContain('sharing.timeSlicing.replicas: replicas are a device-plugin setting');
  });

  it('prepares a valid GpuConfig claim with its env and time-slice interval in the CDI spec', async () => {
    const setup = test.driver();
    const { container, claimUid, device } = await runClaimPod(
      setup,
      {
        name: 'configured',
        driver: 'gpu.kdp.dev',
        selector: H100,
        parameters: gpuConfig({
          sharing: { timeSlicing: { interval: 'Short' } },
          env: { NVIDIA_DRIVER_CAPABILITIES: 'compute,utility' },
        }),
      },
      'configured-pod',
    );
    const spec = readdirSync(setup.cdiDir).find((file) => file.includes(claimUid));
    expect(spec).toBeDefined();
    const cdi = JSON.parse(readFileSync(join(setup.cdiDir, spec ?? ''), 'utf8')) as {
      devices: { name: string; containerEdits: { env?: string[] } }[];
    };
    const env = cdi.devices.find((d) => d.name === `${claimUid}-${device}`)?.containerEdits.env ?? [];
    expect(env).toEqual(
      expect.arrayContaining(['NVIDIA_DRIVER_CAPABILITIES=compute,utility', `${timeSliceEnv(device)}=Short`]),
    );
    expect(container.env).toEqual(
      expect.arrayContaining(['NVIDIA_DRIVER_CAPABILITIES=compute,utility', `${timeSliceEnv(device)}=Short`]),
    );
  });
});
