import fc from 'fast-check';
import { createSysfs } from '../sysfs/create-sysfs';
import { createSysfsFixture } from '../testing/sysfs-fixture';
import type { SysfsFixture } from '../testing/sysfs-fixture';
import { addTwoSocketMachine } from '../testing/two-socket-machine';
import { nodeOfCpus, parseMemTotal, readNumaTopology } from './read-numa-topology';

describe('readNumaTopology', () => {
  let fixture: SysfsFixture;
  beforeEach(() => (fixture = createSysfsFixture()));
  afterEach(() => fixture.remove());

  it('reads nodes, CPUs, memory-only nodes, memory and distances of a 2-socket machine', async () => {
    addTwoSocketMachine(fixture);
    const numa = await readNumaTopology(createSysfs({ root: fixture.root }));
    expect(numa.warnings).toEqual([]);
    expect(numa.online).toEqual([0, 1, 2, 3]);
    expect(numa.possible).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(numa.nodes.map((n) => [n.id, n.cpus.length, n.memoryOnly])).toEqual([
      [0, 16, false],
      [1, 16, false],
      [2, 0, true],
      [3, 0, true],
    ]);
    expect(numa.nodes[0]?.memTotalKiB).toBe(263_921_556);
    expect(numa.distances.get(0)?.get(2)).toBe(14);
    expect(numa.distances.get(3)?.get(1)).toBe(14);
    expect(numa.distances.get(1)?.get(1)).toBe(10);
    expect(nodeOfCpus(numa, [16, 17])).toBe(1);
    expect(nodeOfCpus(numa, [0, 31])).toBeUndefined();
    expect(nodeOfCpus(numa, [])).toBeUndefined();
  });

  it('falls back to 10 local / 20 remote, with a warning, when distance files are missing or malformed', async () => {
    fixture.addNumaNode({ id: 0, cpus: '0-3' });
    fixture.addNumaNode({ id: 1, cpus: '4-7', distances: [21] });
    const numa = await readNumaTopology(createSysfs({ root: fixture.root }));
    expect(numa.distances.get(0)).toEqual(
      new Map([
        [0, 10],
        [1, 20],
      ]),
    );
    expect(numa.distances.get(1)).toEqual(
      new Map([
        [0, 20],
        [1, 10],
      ]),
    );
    expect(numa.warnings).toHaveLength(2);
    expect(numa.warnings[0]).toMatch(/node0\/distance is missing; assuming distance 10 local, 20 remote/);
    expect(numa.warnings[1]).toMatch(/node1\/distance is malformed \("21"\)/);
  });

  it('warns about garbage node files and machines without NUMA, and never throws', async () => {
    const empty = await readNumaTopology(createSysfs({ root: fixture.root }));
    expect(empty.nodes).toEqual([]);
    expect(empty.warnings[0]).toMatch(/no NUMA nodes/);
    fixture.addNumaNode({ id: 0, cpus: 'garbage', distances: [10] });
    fixture.setNodeStates({ online: 'x', possible: '' });
    const numa = await readNumaTopology(createSysfs({ root: fixture.root }));
    expect(numa.online).toEqual([0]);
    expect(numa.nodes[0]).toMatchObject({ id: 0, cpus: [], memoryOnly: false });
    expect(numa.warnings.join('\n')).toMatch(
      /online is missing or malformed.*\n.*cpulist is missing or malformed/,
    );
  });

  it('parses MemTotal out of any text without throwing', () => {
    expect(parseMemTotal('Node 0 MemTotal:       263921556 kB\nNode 0 MemFree: 1 kB')).toBe(263921556);
    expect(parseMemTotal(undefined)).toBeUndefined();
    fc.assert(fc.property(fc.string(), (text) => void parseMemTotal(text)));
  });
});
