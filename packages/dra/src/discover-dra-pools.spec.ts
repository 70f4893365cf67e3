import { type PluginDevice } from '@kdp/core';
import { definePlugin } from '@kdp/core/plugin';
import { startPluginRun } from '@kdp/core/testing';
import { createDraServeMode } from './dra-serve-mode';

/** Three devices, one Unhealthy (NoExecute by the resource's hook), one PCI function. */
const plugin = definePlugin({
  name: 'tiny',
  binary: 'tiny-device-plugin',
  title: 'Tiny device plugin',
  version: '1.0.0',
  scan: { run: () => ['a', 'b', 'c'] },
  resources: (ids: string[]) => ({
    resources: [
      {
        name: 'example.com/tiny',
        devices: ids.map((id): PluginDevice =>
          id === 'b'
            ? { id, health: 'Unhealthy', problem: 'fell off the bus' }
            : {
                id,
                health: 'Healthy',
                attributes: { model: 'T1' },
                ...(id === 'c' ? { pciAddress: '0000:3b:00.0' } : {}),
              },
        ),
        dra: { taintEffect: () => 'NoExecute' as const },
      },
    ],
  }),
});

const discover = async (...args: string[]): Promise<string> => {
  const run = startPluginRun(plugin, ['discover', '--mode', 'dra', '--node-name', 'node-a', ...args], {
    modes: { dra: createDraServeMode() },
  });
  expect(await run.done).toBe(0);
  return run.stdout();
};

describe('discover --mode dra', () => {
  it('prints the slices serve --mode dra would publish, as JSON: names, attributes, taints', async () => {
    const doc = JSON.parse(await discover('--output', 'json')) as Record<string, unknown>;
    expect(doc).toMatchObject({ mode: 'dra', excluded: [], warnings: [] });
    expect(doc['drivers']).toEqual([
      {
        driver: 'tiny.kdp.dev',
        pools: [
          {
            resourceName: 'example.com/tiny',
            pool: 'node-a/example.com/tiny',
            slices: [
              [
                {
                  name: 'a',
                  attributes: {
                    id: { string: 'a' },
                    model: { string: 'T1' },
                    resource: { string: 'example.com/tiny' },
                  },
                },
                {
                  name: 'b',
                  attributes: { id: { string: 'b' }, resource: { string: 'example.com/tiny' } },
                  taints: [
                    {
                      key: 'kdp.dev/unhealthy',
                      value: 'fell-off-the-bus',
                      effect: 'NoExecute',
                      timeAdded: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
                    },
                  ],
                },
                {
                  name: 'c',
                  attributes: expect.objectContaining({
                    'resource.kubernetes.io/pciBusID': { string: '0000:3b:00.0' },
                    'resource.kubernetes.io/pcieRoot': { string: 'pci0000:3b' },
                  }),
                },
              ],
            ],
          },
        ],
      },
    ]);
  });

  it('prints them as a table, one row per device with its capacities, counters and taints', async () => {
    const lines = (await discover()).split('\n');
    expect(lines[0]).toMatch(/^DRIVER +POOL +SLICE +DEVICE +ATTRIBUTES +CAPACITY +COUNTERS +TAINTS$/);
    expect(lines.slice(1, 4).map((line) => line.split(/ +/))).toEqual([
      ['tiny.kdp.dev', 'node-a/example.com/tiny', '0', 'a', '3', '-', '-', '-'],
      [
        'tiny.kdp.dev',
        'node-a/example.com/tiny',
        '0',
        'b',
        '2',
        '-',
        '-',
        'kdp.dev/unhealthy=fell-off-the-bus:NoExecute',
      ],
      ['tiny.kdp.dev', 'node-a/example.com/tiny', '0', 'c', '5', '-', '-', '-'],
    ]);
  });

  it('is refused for a mode without discover, and device-plugin stays the default view', async () => {
    const serveOnly = { description: 'serve only', create: () => Promise.reject(new Error('not run')) };
    const run = startPluginRun(plugin, ['discover', '--mode', 'other'], {
      modes: { dra: createDraServeMode(), other: serveOnly },
    });
    expect(await run.done).toBe(2);
    expect(run.stderr()).toContain('--mode other applies to serve only');
    const plain = startPluginRun(plugin, ['discover', '--output', 'json'], {
      modes: { dra: createDraServeMode() },
    });
    expect(await plain.done).toBe(0);
    expect(JSON.parse(plain.stdout())).toHaveProperty('resources');
  });
});
