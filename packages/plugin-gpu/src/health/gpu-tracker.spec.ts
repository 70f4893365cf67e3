import type { Gpu, GpuScan } from '../discovery/gpu';
import { createGpuTracker } from './gpu-tracker';
import { createXidHealth } from './xid-health';

const gpu = (id: string, problems: string[] = [], parent?: string): Gpu => ({
  kind: parent === undefined ? 'nvidia' : 'nvidia-mig',
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
  sysfsPath: `/sys/bus/pci/devices/${id}`,
});
const scan = (...gpus: Gpu[]): GpuScan => ({ gpus, excluded: [], warnings: [] });

describe('createGpuTracker', () => {
  it('never advertises a GPU first seen with problems', () => {
    const tracker = createGpuTracker();
    expect(tracker.update(scan(gpu('A', ['/dev/nvidia0 is missing']))).gpus).toEqual([]);
  });

  it('keeps an advertised GPU as Unhealthy while it is gone or broken, Healthy when it is back', () => {
    const tracker = createGpuTracker();
    expect(tracker.update(scan(gpu('A'), gpu('B'))).changes).toEqual([]);
    const gone = tracker.update(scan(gpu('A')));
    expect(gone.gpus.map((g) => [g.gpu.id, g.health])).toEqual([
      ['A', 'Healthy'],
      ['B', 'Unhealthy'],
    ]);
    expect(gone.changes).toEqual([
      {
        id: 'B',
        health: 'Unhealthy',
        problems: [
          '/sys/bus/pci/devices/B is gone, unbound from its driver, or no longer listed by the driver',
        ],
      },
    ]);
    const broken = tracker.update(scan(gpu('A', ['/dev/nvidia0 is missing']), gpu('B')));
    expect(broken.gpus.map((g) => g.health)).toEqual(['Unhealthy', 'Healthy']);
    expect(broken.changes.map((c) => [c.id, c.health])).toEqual([
      ['A', 'Unhealthy'],
      ['B', 'Healthy'],
    ]);
    expect(tracker.update(scan(gpu('A'), gpu('B'))).changes).toEqual([
      { id: 'A', health: 'Healthy', problems: [] },
    ]);
  });

  it('Xid events mark the GPU and its MIG devices unhealthy for the hold time; ignored Xids do nothing', () => {
    let now = 0;
    const xid = createXidHealth({ ignoredXids: [13, 43], holdMs: 1000, clock: { now: () => now } });
    const tracker = createGpuTracker((ids) => xid.problems(ids));
    const machine = scan(gpu('GPU-1'), gpu('GPU-2'), gpu('MIG-GPU-2/1/0', [], 'GPU-2'));
    tracker.update(machine);
    xid.handle({ uuid: 'GPU-2', xid: 13 });
    expect(tracker.update(machine).gpus.every((g) => g.health === 'Healthy')).toBe(true);
    xid.handle({ uuid: 'GPU-2', xid: 79 });
    const hit = tracker.update(machine).gpus;
    expect(hit.map((g) => [g.gpu.id, g.health])).toEqual([
      ['GPU-1', 'Healthy'],
      ['GPU-2', 'Unhealthy'],
      ['MIG-GPU-2/1/0', 'Unhealthy'],
    ]);
    expect(hit[1]?.problems).toEqual(['NVML reported critical Xid 79']);
    now = 1000;
    expect(tracker.update(machine).gpus.every((g) => g.health === 'Healthy')).toBe(true);
    xid.handle({ xid: 48 });
    expect(tracker.update(machine).gpus.every((g) => g.health === 'Unhealthy')).toBe(true);
  });
});
