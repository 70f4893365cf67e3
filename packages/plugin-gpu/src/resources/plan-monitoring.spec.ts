import type { SysfsFixture } from '@kdp/topology/testing';
import { scanGpus } from '../scan/scan-gpus';
import { fixtureHost, gpuConfig } from '../testing/fixture-devices';
import { buildIntelMachine, buildNvidiaMachine } from '../testing/machines';
import { planMonitoring } from './plan-monitoring';

describe('planMonitoring', () => {
  const fixtures: SysfsFixture[] = [];
  afterAll(() => fixtures.forEach((fixture) => fixture.remove()));
  const monitoring = async (fixture: SysfsFixture, input: unknown = { intel: { monitoring: true } }) => {
    fixtures.push(fixture);
    return planMonitoring((await scanGpus(fixtureHost(fixture))).gpus, gpuConfig(input));
  };
  const nodesOf = async (resource: { allocate?: unknown } | undefined) => {
    const allocate = resource?.allocate as (context: { devices: [] }) => { devices: { hostPath: string }[] };
    return allocate({ devices: [] }).devices.map((node) => node.hostPath);
  };

  it('is off by default, and absent on a node without Intel GPUs', async () => {
    expect(await monitoring(buildIntelMachine(), {})).toEqual([]);
    expect(await monitoring(buildNvidiaMachine())).toEqual([]);
  });

  it('leaves a GPU with a problem out of the device, Unhealthy only once none is left', async () => {
    const fixture = buildIntelMachine();
    fixture.removeDevNode('/dev/dri/card1');
    const [resource] = await monitoring(fixture);
    expect(resource?.devices.map((d) => [d.id, d.health])).toEqual([['all', 'Healthy']]);
    expect(await nodesOf(resource)).toEqual([
      '/dev/dri/card0',
      '/dev/dri/renderD128',
      '/dev/dri/card2',
      '/dev/dri/renderD130',
    ]);
    for (const node of ['/dev/dri/card0', '/dev/dri/card2']) fixture.removeDevNode(node);
    const [none] = await monitoring(fixture);
    expect(none?.devices[0]?.health).toBe('Unhealthy');
    expect(none?.devices[0]?.problem).toMatch(/\/dev\/dri\/card1 is missing/);
    expect(await nodesOf(none)).toEqual([]);
  });
});
