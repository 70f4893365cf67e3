import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '@kdp/core';
import { buildFakeNvml } from '../testing/fake-nvml';
import { loadNvmlXidSource } from './nvml-xid-source';
import type { XidEvent } from './xid-health';

const recorder = () => {
  const lines: Array<[string, unknown, string]> = [];
  const at =
    (level: string) =>
    (fields: unknown, msg?: string): void => {
      lines.push([level, fields, msg ?? '']);
    };
  const logger = {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
  } as unknown as Logger;
  return { logger, lines };
};

describe('loadNvmlXidSource', () => {
  it('absent library: undefined, said once in the log', () => {
    const { logger, lines } = recorder();
    expect(loadNvmlXidSource(logger, { library: 'libnvidia-ml-absent.so.1' })).toBeUndefined();
    expect(lines).toHaveLength(1);
    expect(lines[0]?.[2]).toBe('NVML not available; GPU health comes from sysfs, procfs and /dev only');
  });

  it('through koffi: a critical Xid from the (fake) library reaches the listener with the GPU UUID', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kdp-nvml-'));
    let stop: () => void = () => undefined;
    try {
      const trigger = join(dir, 'fire');
      const { library } = buildFakeNvml(dir, { trigger });
      const { logger, lines } = recorder();
      const nvml = loadNvmlXidSource(logger, { library, waitMs: 50 });
      expect(nvml).toBeDefined();
      let resolveEvent: (event: XidEvent) => void = () => undefined;
      const event = new Promise<XidEvent>((resolve) => (resolveEvent = resolve));
      stop = nvml?.start((e) => resolveEvent(e)) ?? stop;
      expect(lines.map((l) => l[2])).toContain('NVML Xid health on');
      writeFileSync(trigger, '');
      expect(await event).toEqual({ uuid: 'GPU-7a2d4e19-15c3-4b8f-9e62-2c0a7d5b3e02', xid: 79 });
    } finally {
      stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
