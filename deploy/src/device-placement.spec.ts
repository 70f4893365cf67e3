import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createSampleNode, type SampleNode } from '@kdp/demo';
import { bundleEntry, type EntryBundle } from '@kdp/kubelet-sim/testing';
import { buildMi300xMachine } from '@kdp/plugin-gpu/testing';
import { deployDir, repoRoot } from './deploy-dir';
import {
  nodeFeatureRule,
  placementCovers,
  placements,
  placementTerms,
  placementTolerations,
  type PluginPlacement,
} from './device-placement';
import { allInOne, singlePlugins } from './kdp-plugins';
import type { KubeObject } from './kube-object';
import { kustomizeBuild } from './kustomize-build';

// deploy/src/device-placement.ts is the one list of what each plugin serves: the DaemonSets' affinities and
// tolerations and deploy/nfd's NodeFeatureRules must be what it implies, and every device a plugin's own
// `discover` advertises on a node holding every device kind must be one the list places the plugin on.

const daemonSetOf = (dir: string, name: string): KubeObject => {
  const found = kustomizeBuild(join(deployDir, dir)).find(
    (o) => o.kind === 'DaemonSet' && o.metadata.name === name,
  );
  if (found === undefined) throw new Error(`no DaemonSet ${name} in deploy/${dir}`);
  return found;
};
type Mapping = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const podSpecOf = (ds: KubeObject): Mapping => (ds['spec'] as Mapping)['template']['spec'];
const termsOf = (ds: KubeObject): unknown =>
  podSpecOf(ds)['affinity']['nodeAffinity']['requiredDuringSchedulingIgnoredDuringExecution'][
    'nodeSelectorTerms'
  ];
const placementOf = (name: string): PluginPlacement => {
  const found = placements.find((placement) => placement.plugin === name);
  if (found === undefined) throw new Error(`no placement for ${name}`);
  return found;
};

describe('placement: one list feeds the affinities, the tolerations and the NodeFeatureRules', () => {
  it('lists every single plugin once', () => {
    expect(placements.map((p) => p.plugin)).toEqual(singlePlugins.map((p) => p.name));
  });

  it.each(singlePlugins)('deploy/plugins/$name: affinity and tolerations as the list implies', (plugin) => {
    const ds = daemonSetOf(`plugins/${plugin.name}`, plugin.binary);
    const placement = placementOf(plugin.name);
    expect(termsOf(ds)).toEqual(placementTerms(plugin.name, [placement]));
    expect(podSpecOf(ds)['tolerations']).toEqual(placementTolerations(plugin.name, [placement]));
  });

  it('the all-in-one is placed on any plugin’s devices, and tolerates every single plugin’s taints', () => {
    const ds = daemonSetOf(`plugins/${allInOne.name}`, allInOne.binary);
    expect(termsOf(ds)).toEqual(placementTerms(allInOne.name, placements));
    const tolerations = (podSpecOf(ds)['tolerations'] ?? []) as unknown[];
    expect(tolerations).toEqual(placementTolerations(allInOne.name, placements));
    for (const plugin of singlePlugins) {
      const single = (podSpecOf(daemonSetOf(`plugins/${plugin.name}`, plugin.binary))['tolerations'] ??
        []) as unknown[];
      expect(single.filter((t) => !tolerations.some((u) => JSON.stringify(u) === JSON.stringify(t)))).toEqual(
        [],
      );
    }
  });

  it('the GPU plugin is placed on AMD MI300-series nodes (PCI class 1200) labelled by NFD alone', () => {
    const keys = JSON.stringify(termsOf(daemonSetOf('plugins/gpu', 'gpu-device-plugin')));
    expect(keys).toContain('feature.node.kubernetes.io/pci-1200_1002.present');
  });

  it('deploy/nfd holds the NodeFeatureRules the list implies (none for USB)', () => {
    const byName = (objects: readonly unknown[]): unknown[] =>
      [...objects].sort((a, b) =>
        JSON.stringify((a as KubeObject).metadata.name).localeCompare(
          JSON.stringify((b as KubeObject).metadata.name),
        ),
      );
    expect(byName(kustomizeBuild(join(deployDir, 'nfd')))).toEqual(
      byName(placements.flatMap((placement) => nodeFeatureRule(placement) ?? [])),
    );
    expect(nodeFeatureRule(placementOf('usb'))).toBeUndefined();
  });
});

interface Advertised {
  plugin: string;
  device: string;
  pciClass: string;
  pciVendor: string;
}

/** `discover --output json` of a plugin's bundle, and the PCI class and vendor (sysfs) of each device it lists. */
function discover(bundle: string, sysfsRoot: string, args: string[]): Promise<Advertised[]> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, NODE_PATH: join(repoRoot, 'node_modules') };
    execFile(
      process.execPath,
      [bundle, 'discover', '--output', 'json', ...args],
      { env, timeout: 60_000, maxBuffer: 64 << 20 },
      (error, out) => {
        if (error !== null) return reject(error);
        const { resources } = JSON.parse(out) as {
          resources: { devices: { id: string; pciAddress?: string | null }[] }[];
        };
        const read = (address: string, file: string): string =>
          readFileSync(join(sysfsRoot, 'bus', 'pci', 'devices', address, file), 'utf8').trim();
        resolve(
          resources.flatMap((resource) =>
            resource.devices.flatMap((device) =>
              typeof device.pciAddress === 'string'
                ? [
                    {
                      plugin: '',
                      device: device.id,
                      pciClass: read(device.pciAddress, 'class'),
                      pciVendor: read(device.pciAddress, 'vendor'),
                    },
                  ]
                : [],
            ),
          ),
        );
      },
    );
  });
}

describe('every device a plugin advertises is on a node the list places it on', () => {
  let sample: SampleNode;
  const mi300x = buildMi300xMachine();
  const bundles: EntryBundle[] = [];
  const advertised: Advertised[] = [];

  beforeAll(async () => {
    sample = createSampleNode();
    for (const plugin of singlePlugins) {
      const name = plugin.name as Exclude<typeof plugin.name, 'device-plugins'>;
      const bundle = bundleEntry(join(repoRoot, 'packages', plugin.packageDir, 'src', 'main.ts'), {
        external: ['koffi', 'usb'],
      });
      bundles.push(bundle);
      const roots = [
        `--sysfs-root=${sample.sysfsRoot}`,
        `--dev-root=${sample.devRoot}`,
        ...(plugin.procfs ? [`--proc-root=${sample.procRoot}`] : []),
      ];
      const found = await discover(bundle.path, sample.sysfsRoot, [
        ...roots,
        `--config=${sample.configs[name]}`,
      ]);
      advertised.push(...found.map((device) => ({ ...device, plugin: name })));
      if (name === 'gpu') {
        const amd = await discover(bundle.path, mi300x.root, [
          `--sysfs-root=${mi300x.root}`,
          `--dev-root=${mi300x.devRoot}`,
          `--proc-root=${mi300x.procRoot}`,
        ]);
        advertised.push(...amd.map((device) => ({ ...device, plugin: name })));
      }
    }
  }, 180_000);

  afterAll(() => {
    for (const bundle of bundles) bundle.remove();
    sample.remove();
    mi300x.remove();
  });

  it('the plugins advertise PCI devices of every PCI plugin, MI300X (class 1200) included', () => {
    const plugins = new Set(advertised.map((device) => device.plugin));
    expect([...plugins].sort()).toEqual(['fpga', 'gpu', 'infiniband', 'sriov']);
    expect(advertised.some((d) => d.plugin === 'gpu' && d.pciClass.startsWith('0x1200'))).toBe(true);
  });

  it('each advertised device’s PCI class and vendor is covered by its plugin’s placement', () => {
    const uncovered = advertised.filter(
      (device) => !placementCovers(placementOf(device.plugin), device.pciClass, device.pciVendor),
    );
    expect(uncovered).toEqual([]);
  });

  it('a placement without the MI300 class would leave those GPUs unplaced (the check can fail)', () => {
    const gpu = placementOf('gpu');
    const without = { ...gpu, pci: gpu.pci.filter((match) => match.class !== '1200') };
    expect(
      advertised.filter((d) => d.plugin === 'gpu' && !placementCovers(without, d.pciClass, d.pciVendor))
        .length,
    ).toBeGreaterThan(0);
  });
});
