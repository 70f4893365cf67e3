import { createDeviceSelectorCompiler } from '../cel/device-selector-compiler';
import type { ResourceClaim, SliceDevice } from '../dra-types';
import { fixtureClaim, fixtureClass, fixtureNode, fixtureSlice } from '../testing/dra-fixtures';
import { allocatedStateOf } from './allocated-state';
import { allocateClaims } from './allocator';

// Property: on small random instances the backtracking search is exact. It finds an allocation exactly when
// one exists (brute force over every assignment), and what it finds is valid.

const compiler = createDeviceSelectorCompiler();
const gpu = fixtureClass('gpu');

const random = (seed: number): (() => number) => {
  let s = seed;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

interface Slot {
  claim: number;
  request: string;
  model?: string;
}

interface Instance {
  devices: SliceDevice[];
  claims: ResourceClaim[];
  slots: Slot[];
  matchNuma: boolean[];
}

function instance(next: () => number): Instance {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] as T;
  const devices = Array.from({ length: 1 + Math.floor(next() * 5) }, (_, i) => ({
    name: `d${i}`,
    attributes: { model: { string: pick(['A', 'B']) }, numa: { int: pick([0, 1]) } },
  }));
  const slots: Slot[] = [];
  const matchNuma: boolean[] = [];
  const claims = Array.from({ length: 1 + Math.floor(next() * 2) }, (_, c) => {
    const requests: Record<string, object> = {};
    for (let r = 0; r < 1 + Math.floor(next() * 2); r++) {
      const model = next() < 0.5 ? pick(['A', 'B']) : undefined;
      const count = 1 + Math.floor(next() * 2);
      requests[`r${r}`] = {
        count,
        ...(model === undefined
          ? {}
          : {
              selectors: [
                { cel: { expression: `device.attributes["gpu.example.com"].model == "${model}"` } },
              ],
            }),
      };
      for (let i = 0; i < count; i++)
        slots.push({ claim: c, request: `r${r}`, ...(model === undefined ? {} : { model }) });
    }
    matchNuma.push(next() < 0.4);
    return fixtureClaim(
      `c${c}`,
      requests,
      matchNuma[c] ? { constraints: [{ matchAttribute: 'gpu.example.com/numa' }] } : {},
    );
  });
  return { devices, claims, slots, matchNuma };
}

/** Whether an assignment of distinct devices to the slots exists (brute force). */
function exists(inst: Instance, used: ReadonlySet<string>): boolean {
  const chosen: SliceDevice[] = [];
  const ok = (): boolean =>
    inst.matchNuma.every((match, c) => {
      if (!match) return true;
      const numas = inst.slots.flatMap((s, i) =>
        s.claim === c ? [chosen[i]?.attributes?.['numa']?.int] : [],
      );
      return new Set(numas).size <= 1;
    });
  const place = (i: number): boolean => {
    if (i === inst.slots.length) return ok();
    const slot = inst.slots[i] as Slot;
    for (const d of inst.devices) {
      if (used.has(d.name) || chosen.includes(d)) continue;
      if (slot.model !== undefined && d.attributes?.['model']?.string !== slot.model) continue;
      chosen.push(d);
      if (place(i + 1)) return true;
      chosen.pop();
    }
    return false;
  };
  return place(0);
}

describe('allocateClaims (property)', () => {
  it('finds an allocation exactly when one exists, and only valid ones', () => {
    const next = random(27);
    let found = 0;
    for (let n = 0; n < 300; n++) {
      const inst = instance(next);
      const held = inst.devices.filter(() => next() < 0.2).map((d) => d.name);
      const allocated = allocatedStateOf([
        {
          ...fixtureClaim('held', {}),
          status: {
            allocation: {
              devices: {
                results: held.map((device) => ({
                  request: 'x',
                  driver: 'gpu.example.com',
                  pool: 'node-a',
                  device,
                })),
              },
            },
          },
        },
      ]);
      const outcome = allocateClaims({
        node: fixtureNode('node-a'),
        claims: inst.claims,
        classOf: () => gpu,
        slices: [fixtureSlice('s', inst.devices)],
        allocated,
        compile: (e) => compiler.compile(e),
      });
      const expected = exists(inst, new Set(held));
      expect([n, outcome.kind]).toEqual([n, expected ? 'allocated' : 'unschedulable']);
      if (outcome.kind !== 'allocated') continue;
      found++;
      const results = outcome.allocations.flatMap((a, c) =>
        a.devices.results.map((r) => ({ ...r, claim: c })),
      );
      expect(results).toHaveLength(inst.slots.length);
      expect(new Set(results.map((r) => r.device)).size).toBe(results.length);
      for (const r of results) {
        expect(held).not.toContain(r.device);
        const slot = inst.slots.find((s) => s.claim === r.claim && s.request === r.request);
        const device = inst.devices.find((d) => d.name === r.device);
        if (slot?.model !== undefined) expect(device?.attributes?.['model']?.string).toBe(slot.model);
      }
      inst.matchNuma.forEach((match, c) => {
        if (!match) return;
        const numas = results
          .filter((r) => r.claim === c)
          .map((r) => inst.devices.find((d) => d.name === r.device)?.attributes?.['numa']?.int);
        expect(new Set(numas).size).toBe(1);
      });
    }
    expect(found).toBeGreaterThan(40);
  });
});
