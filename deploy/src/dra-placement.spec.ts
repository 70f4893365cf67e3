import { join } from 'node:path';
import { deployDir } from './deploy-dir';
import { helmTemplate } from './helm-template';
import { allInOne, deployedPlugins, draVariants, singlePlugins } from './kdp-plugins';
import type { KubeObject } from './kube-object';
import { kustomizeBuild } from './kustomize-build';
import { affinityOverlap, requiredTerms, termsOverlap } from './node-affinity-overlap';

// One mode per node, one driver per device: no node can run a device plugin and a DRA driver for the same
// plugin, nor two DRA drivers for it (a single plugin's and the all-in-one's). Checked on the required node
// affinities as rendered by kubectl kustomize and by the chart in each mode, pair by pair, with a solver for
// node-selector terms (src/node-affinity-overlap.ts).

const chart = join(deployDir, 'helm', 'kdp');
type Mapping = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The plugins a kdp DaemonSet serves, and whether it is a DRA driver; undefined for the monitor. */
function servedBy(ds: KubeObject): { plugins: string[]; dra: boolean } | undefined {
  const variant = draVariants.find((candidate) => candidate.daemonSet === ds.metadata.name);
  if (variant !== undefined)
    return { plugins: variant.drivers.map((driver) => driver.replace(/\.kdp\.dev$/, '')), dra: true };
  const plugin = deployedPlugins.find((candidate) => candidate.binary === ds.metadata.name);
  if (plugin === undefined) return undefined;
  return { plugins: (plugin === allInOne ? singlePlugins : [plugin]).map((p) => p.name), dra: false };
}

/** Every pair of DaemonSets that serve one plugin, at least one as a DRA driver, and a node both could run on. */
function clashes(daemonSets: readonly KubeObject[]): string[] {
  const found: string[] = [];
  daemonSets.forEach((a, i) => {
    for (const b of daemonSets.slice(i + 1)) {
      const [servedA, servedB] = [servedBy(a), servedBy(b)];
      if (servedA === undefined || servedB === undefined || !(servedA.dra || servedB.dra)) continue;
      const shared = servedA.plugins.filter((plugin) => servedB.plugins.includes(plugin));
      const overlap = shared.length > 0 ? affinityOverlap(a, b) : undefined;
      if (overlap !== undefined)
        found.push(
          `${a.metadata.name} and ${b.metadata.name} (${shared.join(', ')}) both match ${JSON.stringify(overlap)}`,
        );
    }
  });
  return found;
}

const daemonSetsOf = (objects: readonly KubeObject[]): KubeObject[] =>
  objects.filter((o) => o.kind === 'DaemonSet' && servedBy(o) !== undefined);

const kustomized = daemonSetsOf([
  ...deployedPlugins.flatMap((plugin) => kustomizeBuild(join(deployDir, 'plugins', plugin.name))),
  ...draVariants.flatMap((variant) => kustomizeBuild(join(deployDir, variant.dir))),
]);
const find = (name: string): KubeObject => {
  const found = kustomized.find((ds) => ds.metadata.name === name);
  if (found === undefined) throw new Error(`no DaemonSet ${name}`);
  return found;
};
const termsOf = (ds: KubeObject): Mapping[] =>
  (ds['spec'] as Mapping)['template']['spec']['affinity']['nodeAffinity'][
    'requiredDuringSchedulingIgnoredDuringExecution'
  ]['nodeSelectorTerms'];

describe('the node-selector solver', () => {
  const term = (...matchExpressions: { key: string; operator: string; values?: string[] }[]) => ({
    matchExpressions,
  });
  it.each([
    [
      'In and NotIn of the same value',
      term({ key: 'm', operator: 'In', values: ['dra'] }),
      term({ key: 'm', operator: 'NotIn', values: ['dra'] }),
      false,
    ],
    [
      'In of disjoint values',
      term({ key: 'm', operator: 'In', values: ['a'] }),
      term({ key: 'm', operator: 'In', values: ['b'] }),
      false,
    ],
    [
      'Exists and DoesNotExist',
      term({ key: 'm', operator: 'Exists' }),
      term({ key: 'm', operator: 'DoesNotExist' }),
      false,
    ],
    [
      'NotIn and an absent label',
      term({ key: 'm', operator: 'NotIn', values: ['dra'] }),
      term({ key: 'x', operator: 'In', values: ['true'] }),
      true,
    ],
    [
      'In of overlapping values',
      term({ key: 'm', operator: 'In', values: ['a', 'b'] }),
      term({ key: 'm', operator: 'In', values: ['b'] }),
      true,
    ],
    [
      'In, and NotIn of another value',
      term({ key: 'm', operator: 'In', values: ['a'] }),
      term({ key: 'm', operator: 'NotIn', values: ['b'] }),
      true,
    ],
  ])('%s', (_name, a, b, expected) => {
    expect(termsOverlap(a, b)).toBe(expected);
    expect(termsOverlap(b, a)).toBe(expected);
  });

  it('treats a DaemonSet without required node affinity as running everywhere', () => {
    const copy = structuredClone(find('gpu-device-plugin'));
    delete (copy['spec'] as Mapping)['template']['spec']['affinity'];
    expect(requiredTerms(copy)).toEqual([{}]);
    expect(affinityOverlap(copy, find('gpu-dra-driver'))).toBeDefined();
  });
});

describe('kustomize: device plugins and DRA drivers never share a node for one plugin', () => {
  it('no pair of DaemonSets under deploy/plugins and deploy/dra can run on one node for the same plugin', () => {
    expect(kustomized.map((ds) => ds.metadata.name).sort()).toEqual(
      [...deployedPlugins.map((p) => p.binary), ...draVariants.map((v) => v.daemonSet)].sort(),
    );
    expect(clashes(kustomized)).toEqual([]);
  });

  it('finds the clash when a device plugin loses its kdp.dev/<plugin>.mode NotIn [dra]', () => {
    const copy = structuredClone(find('gpu-device-plugin'));
    for (const term of termsOf(copy))
      term['matchExpressions'] = (term['matchExpressions'] as Mapping[]).filter(
        (expression) => expression['key'] !== 'kdp.dev/gpu.mode',
      );
    expect(clashes([copy, find('gpu-dra-driver')])).toEqual([
      expect.stringContaining('gpu-device-plugin and gpu-dra-driver (gpu)'),
    ]);
  });

  it('finds the clash when a single driver may run beside the all-in-one drivers', () => {
    const copy = structuredClone(find('usb-dra-driver'));
    (termsOf(copy)[0] as Mapping)['matchExpressions'].pop();
    expect(clashes([copy, find('kdp-dra-drivers')])).toEqual([
      expect.stringContaining('usb-dra-driver and kdp-dra-drivers (usb)'),
    ]);
  });
});

describe('helm: each mode per plugin renders its DaemonSets, and none share a node for one plugin', () => {
  const names = singlePlugins.map((plugin) => plugin.name);
  const modes = {
    deviceplugin: { plugins: true, dra: false },
    dra: { plugins: false, dra: true },
    both: { plugins: true, dra: true },
  };
  it.each(Object.entries(modes))('mode %s (every plugin)', (_mode, { plugins, dra }) => {
    const objects = helmTemplate(chart, {
      monitor: { enabled: false },
      plugins: Object.fromEntries(names.map((name) => [name, { enabled: plugins }])),
      dra: Object.fromEntries(names.map((name) => [name, { enabled: dra }])),
    });
    const rendered = daemonSetsOf(objects).map((ds) => ds.metadata.name);
    expect(rendered.sort()).toEqual(
      [
        ...(plugins ? singlePlugins.map((p) => p.binary) : []),
        ...(dra ? draVariants.filter((v) => v.plugin !== allInOne).map((v) => v.daemonSet) : []),
      ].sort(),
    );
    expect(clashes(daemonSetsOf(objects))).toEqual([]);
  });

  it('the all-in-one device plugin beside every DRA DaemonSet, the all-in-one drivers included', () => {
    const objects = helmTemplate(chart, {
      allInOne: { enabled: true },
      dra: Object.fromEntries([...names, 'allInOne'].map((name) => [name, { enabled: true }])),
    });
    expect(daemonSetsOf(objects)).toHaveLength(2 + names.length);
    expect(clashes(daemonSetsOf(objects))).toEqual([]);
  });
});
