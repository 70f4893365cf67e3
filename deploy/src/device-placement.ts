import type { DeployedPlugin } from './kdp-plugins';

/** A PCI class (4 hex digits, `0302`) and vendor (`10de`): NFD labels such nodes `pci-<class>_<vendor>.present`. */
export interface PciMatch {
  readonly class: string;
  readonly vendor: string;
  /** What this is (a comment in the manifests and the tests' messages). */
  readonly what: string;
}

/** An NFD feature label other than a PCI one, the NFD rule expression behind it and the PCI classes it covers. */
export interface FeatureMatch {
  /** The label NFD sets (`network-sriov.capable`), under feature.node.kubernetes.io/. */
  readonly label: string;
  /** The same as a NodeFeatureRule's `matchFeatures` entry. */
  readonly feature: string;
  readonly matchExpressions: Readonly<Record<string, { op: string; value?: readonly string[] }>>;
  /** The leading hex digits of the PCI classes whose devices this label finds (`02`: network controllers). */
  readonly classPrefix: string;
}

/** Where one plugin runs: the devices it serves, as NFD finds them, and the vendors' taints it tolerates. */
export interface PluginPlacement {
  readonly plugin: Exclude<DeployedPlugin['name'], 'device-plugins'>;
  readonly pci: readonly PciMatch[];
  readonly features: readonly FeatureMatch[];
  /** Taints (NoSchedule, any value) that vendors' operators put on nodes holding these devices. */
  readonly vendorTaints: readonly string[];
}

const pci = (cls: string, vendor: string, what: string): PciMatch => ({ class: cls, vendor, what });

/**
 * THE list of what each plugin serves, from which the DaemonSets' node affinities and tolerations, the
 * NodeFeatureRules (deploy/nfd) and the chart's placement values are derived (each checked by a test).
 */
export const placements: readonly PluginPlacement[] = [
  {
    plugin: 'gpu',
    pci: [
      pci('0300', '10de', 'NVIDIA VGA'),
      pci('0302', '10de', 'NVIDIA 3D controller'),
      pci('0300', '1002', 'AMD VGA'),
      pci('0380', '1002', 'AMD display controller (Instinct MI100-MI250)'),
      pci('1200', '1002', 'AMD processing accelerator (Instinct MI300 series)'),
      pci('0300', '8086', 'Intel VGA'),
      pci('0380', '8086', 'Intel display controller (Data Center GPU)'),
    ],
    features: [],
    vendorTaints: ['nvidia.com/gpu', 'amd.com/gpu', 'gpu.intel.com/i915', 'gpu.intel.com/xe'],
  },
  {
    plugin: 'sriov',
    pci: [],
    features: [
      {
        label: 'network-sriov.capable',
        feature: 'network.device',
        matchExpressions: { sriov_totalvfs: { op: 'Gt', value: ['0'] } },
        classPrefix: '02',
      },
    ],
    vendorTaints: [],
  },
  {
    plugin: 'infiniband',
    pci: [],
    features: [
      {
        label: 'rdma.capable',
        feature: 'rdma.capable',
        matchExpressions: { is_rdma: { op: 'IsTrue' } },
        classPrefix: '02',
      },
    ],
    vendorTaints: ['rdma/hca'],
  },
  // USB devices have no PCI class NFD could tell apart from the host controllers every node has: opt-in only.
  { plugin: 'usb', pci: [], features: [], vendorTaints: [] },
  {
    plugin: 'fpga',
    pci: [pci('1200', '8086', 'Intel FPGA (DFL)'), pci('1200', '10ee', 'Xilinx FPGA')],
    features: [],
    vendorTaints: [],
  },
];

/** One expression of a required node-affinity term. */
export interface PlacementExpression {
  readonly key: string;
  readonly operator: 'In' | 'NotIn';
  readonly values: readonly string[];
}

/** One required node-affinity term (all its expressions must match). */
export interface PlacementTerm {
  readonly matchExpressions: readonly PlacementExpression[];
}

/** The name of the all-in-one, whose DRA DaemonSet a node chooses with `kdp.dev/device-plugins.mode=dra`. */
const ALL_IN_ONE = 'device-plugins';

/** The node label that switches a node to the DRA driver of a DaemonSet family: `kdp.dev/<name>.mode=dra`. */
export function draModeLabel(name: string): string {
  return `kdp.dev/${name}.mode`;
}

const mode = (name: string, operator: 'In' | 'NotIn'): PlacementExpression => ({
  key: draModeLabel(name),
  operator,
  values: ['dra'],
});

/**
 * What keeps a device plugin serving these plugins off the nodes switched to DRA: `kdp.dev/<plugin>.mode NotIn
 * [dra]` for each, and the all-in-one's (whose DRA DaemonSet serves every plugin).
 */
export function offDraExpressions(served: readonly string[]): PlacementExpression[] {
  return [...served, ALL_IN_ONE]
    .filter((name, index, all) => all.indexOf(name) === index)
    .map((name) => mode(name, 'NotIn'));
}

/**
 * The node affinity of a DRA DaemonSet: the node labelled `kdp.dev/<name>.mode=dra`; a single plugin's also not
 * labelled for the all-in-one's drivers, which serve the same devices.
 */
export function draPlacementTerms(name: string): PlacementTerm[] {
  const expressions = [mode(name, 'In'), ...(name === ALL_IN_ONE ? [] : [mode(ALL_IN_ONE, 'NotIn')])];
  return [{ matchExpressions: expressions }];
}

const term = (key: string, served: readonly string[]): PlacementTerm => ({
  matchExpressions: [{ key, operator: 'In', values: ['true'] }, ...offDraExpressions(served)],
});

/** The NFD labels of a placement, in order: PCI class/vendor, then the other features. */
export function nfdLabels(placement: PluginPlacement): string[] {
  return [
    ...placement.pci.map((match) => `feature.node.kubernetes.io/pci-${match.class}_${match.vendor}.present`),
    ...placement.features.map((feature) => `feature.node.kubernetes.io/${feature.label}`),
  ];
}

/**
 * The node-affinity terms of a device-plugin DaemonSet serving these placements (any may match), then
 * `kdp.dev/<name>.present`; each term keeps it off the nodes switched to DRA for any plugin it serves.
 */
export function placementTerms(optIn: string, of: readonly PluginPlacement[]): PlacementTerm[] {
  const served = of.map((placement) => placement.plugin);
  return [...of.flatMap(nfdLabels), `kdp.dev/${optIn}.present`].map((key) => term(key, served));
}

/** A toleration as the DaemonSets write it. */
export interface PlacementToleration {
  readonly key: string;
  readonly operator: 'Exists';
  readonly effect?: 'NoSchedule';
}

/** The tolerations of a DaemonSet named `own` serving these placements: CriticalAddonsOnly, kdp.dev/*, vendors'. */
export function placementTolerations(own: string, of: readonly PluginPlacement[]): PlacementToleration[] {
  const ownKeys = [own, ...of.map((placement) => placement.plugin)].filter(
    (key, index, all) => all.indexOf(key) === index,
  );
  return [
    { key: 'CriticalAddonsOnly', operator: 'Exists' },
    ...ownKeys.map((key) => ({
      key: `kdp.dev/${key}`,
      operator: 'Exists' as const,
      effect: 'NoSchedule' as const,
    })),
    ...of.flatMap((placement) =>
      placement.vendorTaints.map((key) => ({
        key,
        operator: 'Exists' as const,
        effect: 'NoSchedule' as const,
      })),
    ),
  ];
}

/** The NodeFeatureRule labelling `kdp.dev/<plugin>.present=true` on nodes NFD finds the plugin's devices on. */
export function nodeFeatureRule(placement: PluginPlacement): Record<string, unknown> | undefined {
  const matchAny = [
    ...placement.pci.map((match) => ({
      matchFeatures: [
        {
          feature: 'pci.device',
          matchExpressions: {
            class: { op: 'In', value: [match.class] },
            vendor: { op: 'In', value: [match.vendor] },
          },
        },
      ],
    })),
    ...placement.features.map((feature) => ({
      matchFeatures: [{ feature: feature.feature, matchExpressions: feature.matchExpressions }],
    })),
  ];
  if (matchAny.length === 0) return undefined;
  return {
    apiVersion: 'nfd.k8s-sigs.io/v1alpha1',
    kind: 'NodeFeatureRule',
    metadata: { name: `kdp-${placement.plugin}`, labels: { 'app.kubernetes.io/part-of': 'kdp' } },
    spec: {
      rules: [
        {
          name: `kdp ${placement.plugin}`,
          labels: { [`kdp.dev/${placement.plugin}.present`]: 'true' },
          matchAny,
        },
      ],
    },
  };
}

/** Whether a placement places its plugin on a node holding a PCI function of this class (`0x120000`) and vendor. */
export function placementCovers(placement: PluginPlacement, pciClass: string, pciVendor: string): boolean {
  const cls = pciClass.replace(/^0x/, '').slice(0, 4).toLowerCase();
  const vendor = pciVendor.replace(/^0x/, '').toLowerCase();
  return (
    placement.pci.some((match) => match.class === cls && match.vendor === vendor) ||
    placement.features.some((feature) => cls.startsWith(feature.classPrefix))
  );
}
