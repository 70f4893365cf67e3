import { systemClock } from '@kdp/base';
import { optimizingCompilers } from '@kdp/core';
import type { ServeModeContext } from '@kdp/core/plugin';
import { Registry } from 'prom-client';
import { createDraServeMode } from './dra-serve-mode';

/** Each load of ./dra-metrics (the module factory runs once per load, when something requires it). */
const mockMetricsLoads: string[] = [];
jest.mock('./dra-metrics', () => {
  mockMetricsLoads.push('dra-metrics');
  return jest.requireActual('./dra-metrics');
});

describe('createDraServeMode', () => {
  const backend = (metricsAddress: string | undefined, registry: Registry) =>
    createDraServeMode({ access: { server: 'http://127.0.0.1:1' } }).create({
      nodeName: 'node-1',
      common: { metricsAddress, pluginsRegistryDir: '/r', cdiDir: '/c', procRoot: '/proc' },
      flags: { kubeconfig: undefined, 'dra-plugins-dir': '/p' },
      env: {},
      plugins: [],
      metrics: { registry },
      clock: systemClock,
      signal: new AbortController().signal,
    } as unknown as ServeModeContext);

  it('loads its metrics (and prom-client for them) only when the process serves /metrics', async () => {
    const registry = new Registry();
    await backend(undefined, registry);
    expect(mockMetricsLoads).toEqual([]);
    expect(await registry.getMetricsAsJSON()).toEqual([]);
    await backend(':0', registry);
    expect(mockMetricsLoads).toEqual(['dra-metrics']);
    expect((await registry.getMetricsAsJSON()).map((m) => m.name)).toContain('kdp_dra_prepare_calls_total');
  });

  it("turns V8's TurboFan on once its drivers serve, after a start that held it off (@kdp/core/start)", async () => {
    const started = await backend(undefined, new Registry());
    expect(optimizingCompilers.hold()).toBe(true);
    try {
      await started.start?.();
      expect(optimizingCompilers.held).toBe(false);
    } finally {
      optimizingCompilers.release();
    }
  });
});
