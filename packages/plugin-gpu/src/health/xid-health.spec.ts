import { createLogger, systemClock } from '@kdp/core';
import { createFakeClock } from '@kdp/kubelet-sim';
import { gpuConfig } from '../testing/fixture-devices';
import type { Gpu, GpuScan } from '../scan/gpu';
import { createXidHealth, type XidContext, type XidEvent } from './xid-health';

const gpu = (id: string, problems: string[] = [], parent?: string, kind?: Gpu['kind']): Gpu => ({
  kind: kind ?? (parent === undefined ? 'nvidia' : 'nvidia-mig'),
  id,
  pciAddress: '0000:03:00.0',
  model: 'm',
  numaNodes: [0],
  pciePath: [],
  deviceNodes: [],
  sharedNodes: [],
  mounts: [],
  attributes: parent === undefined ? {} : { parent },
  problems,
  xgmiPeers: [],
});
const scan = (...gpus: Gpu[]): GpuScan => ({
  gpus,
  excluded: [],
  warnings: [],
  candidates: [],
  procfsDirs: [],
});
const problemsOf = (result: GpuScan): Array<[string, readonly string[]]> =>
  result.gpus.map((g) => [g.id, g.problems]);

/** A context and a fake event source whose events the test fires. */
function setup(options: { command?: 'serve' | 'discover'; config?: unknown } = {}) {
  let now = 0;
  let emit: (event: XidEvent) => void = () => undefined;
  const calls = { created: 0, stopped: 0, rescans: 0 };
  const ctx: XidContext = {
    command: options.command ?? 'serve',
    config: gpuConfig(options.config ?? { health: { ignoredXids: [13, 43], xidHoldSeconds: 1 } }),
    logger: createLogger({ level: 'error', destination: { write: () => undefined } }),
    clock: { ...systemClock, now: () => now },
    rescan: () => void calls.rescans++,
  };
  const xid = createXidHealth(ctx, () => {
    calls.created++;
    return {
      start: (onEvent) => {
        emit = onEvent;
        return () => void calls.stopped++;
      },
    };
  });
  return { xid, calls, emit: (event: XidEvent) => emit(event), at: (ms: number) => (now = ms) };
}

describe('createXidHealth', () => {
  it('critical Xids mark the GPU and its MIG devices for the hold time; ignored Xids do nothing', () => {
    const { xid, emit, at, calls } = setup();
    const machine = scan(
      gpu('GPU-1'),
      gpu('GPU-2', ['/dev/nvidia1 is missing']),
      gpu('MIG-GPU-2/1/0', [], 'GPU-2'),
    );
    expect(xid.mark(machine)).toBe(machine);
    emit({ uuid: 'GPU-2', xid: 13 });
    expect(xid.mark(machine)).toBe(machine);
    expect(calls.rescans).toBe(0);
    emit({ uuid: 'GPU-2', xid: 79 });
    expect(calls.rescans).toBe(1);
    expect(problemsOf(xid.mark(machine))).toEqual([
      ['GPU-1', []],
      ['GPU-2', ['/dev/nvidia1 is missing', 'NVML reported critical Xid 79']],
      ['MIG-GPU-2/1/0', ['NVML reported critical Xid 79']],
    ]);
    at(1000);
    expect(xid.mark(machine)).toBe(machine);
    emit({ xid: 48 });
    expect(xid.mark(machine).gpus.every((g) => g.problems.includes('NVML reported critical Xid 48'))).toBe(
      true,
    );
  });

  it('records the held Xids on the GPU and asks for a rescan when the hold ends, so it recovers then', () => {
    const clock = createFakeClock(0);
    let rescans = 0;
    const xid = createXidHealth(
      {
        command: 'serve',
        config: gpuConfig({ health: { xidHoldSeconds: 2 } }),
        logger: createLogger({ level: 'error', destination: { write: () => undefined } }),
        clock,
        rescan: () => void rescans++,
      },
      () => ({ start: (onEvent) => ((emitXid = onEvent), () => undefined) }),
    );
    let emitXid: (event: XidEvent) => void = () => undefined;
    const machine = scan(gpu('GPU-1'), gpu('MIG-GPU-1/1/0', [], 'GPU-1'));
    xid.mark(machine);
    emitXid({ uuid: 'GPU-1', xid: 79 });
    expect(xid.mark(machine).gpus.map((g) => g.xids)).toEqual([[79], [79]]);
    expect(rescans).toBe(1);
    clock.advance(1999);
    expect(rescans).toBe(1);
    clock.advance(1);
    expect(rescans).toBe(2);
    expect(xid.mark(machine)).toBe(machine);
    emitXid({ uuid: 'GPU-1', xid: 94 });
    xid.stop();
    expect(clock.pending).toBe(0);
  });

  it('xidHoldSeconds 0 keeps the GPU unhealthy for good', () => {
    const { xid, emit, at } = setup({ config: { health: { xidHoldSeconds: 0 } } });
    const machine = scan(gpu('GPU-1'));
    xid.mark(machine);
    emit({ uuid: 'GPU-1', xid: 79 });
    at(1e12);
    expect(problemsOf(xid.mark(machine))).toEqual([['GPU-1', ['NVML reported critical Xid 79']]]);
  });

  it('starts the source once, in serve, when the first NVIDIA GPU is seen; stop stops it', () => {
    const { xid, calls } = setup();
    xid.mark(scan(gpu('0000:03:00.0', [], undefined, 'amd')));
    expect(calls.created).toBe(0);
    xid.mark(scan(gpu('GPU-1')));
    xid.mark(scan(gpu('GPU-1')));
    expect(calls.created).toBe(1);
    xid.stop();
    expect(calls.stopped).toBe(1);
  });

  it.each([
    ['discover', {}],
    ['serve', { health: { nvml: 'off' } }],
  ] as const)('never starts the source in %s with %j', (command, config) => {
    const { xid, calls } = setup({ command, config });
    xid.mark(scan(gpu('GPU-1')));
    expect(calls.created).toBe(0);
  });
});
