import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { deployDir, repoRoot } from './deploy-dir';
import { helmTemplate, runHelm } from './helm-template';
import { draVariants, singlePlugins } from './kdp-plugins';
import { objectId, type KubeObject } from './kube-object';
import { kustomizeBuild } from './kustomize-build';
import { draProfileRules, profileRules } from './profile-rules';
import { schemaProblems } from './schema-problems';

// deploy/helm/kdp: helm lint --strict, and helm template (the pinned helm v4) over a matrix of values; every object
// validates, every plugin DaemonSet keeps the security profile, and where kustomize has the same choice the chart
// renders the same objects as kubectl kustomize, object for object.

const chart = join(deployDir, 'helm', 'kdp');
const off = Object.fromEntries(singlePlugins.map((plugin) => [plugin.name, { enabled: false }]));
const only = (name: string): object => ({ ...off, [name]: { enabled: true } });

interface Case {
  readonly name: string;
  readonly values: object;
  /** The kustomization rendering the same choice (and the build a Component is rendered over). */
  readonly kustomize?: { dir: string; host?: string };
}

const cases: Case[] = [
  { name: 'defaults', values: { namespace: { create: true } }, kustomize: { dir: 'all' } },
  ...singlePlugins.map((plugin) => ({
    name: `${plugin.name} alone`,
    values: { namespace: { create: true }, plugins: only(plugin.name), monitor: { enabled: false } },
    kustomize: { dir: plugin.name },
  })),
  {
    name: 'all-in-one',
    values: { namespace: { create: true }, allInOne: { enabled: true } },
    kustomize: { dir: 'device-plugins' },
  },
  ...draVariants.map((variant) => ({
    name: `DRA ${variant.plugin.name}`,
    values: {
      namespace: { create: true },
      plugins: off,
      monitor: { enabled: false },
      dra: { [variant.drivers.length > 1 ? 'allInOne' : variant.plugin.name]: { enabled: true } },
    },
    kustomize: { dir: variant.dir },
  })),
  {
    name: 'CDI',
    values: {
      namespace: { create: true },
      plugins: only('gpu'),
      monitor: { enabled: false },
      cdi: { enabled: true },
    },
    kustomize: { dir: 'components/cdi', host: 'gpu' },
  },
  {
    name: 'metrics',
    values: { namespace: { create: true }, metrics: { podMonitor: { enabled: true } } },
    kustomize: { dir: 'overlays/all-metrics' },
  },
  {
    name: 'node-config label',
    values: { namespace: { create: true }, nodeConfig: { label: 'kdp.dev/device-plugin.config' } },
    kustomize: { dir: 'components/node-config-label', host: 'all' },
  },
  {
    name: 'NFD rules',
    values: { plugins: off, monitor: { enabled: false }, nfd: { rules: { enabled: true } } },
    kustomize: { dir: 'nfd' },
  },
  {
    name: 'all-in-one beside the GPU DRA driver',
    values: { allInOne: { enabled: true }, dra: { gpu: { enabled: true } } },
  },
  {
    name: 'every plugin in both modes, and the all-in-one drivers',
    values: {
      dra: Object.fromEntries(
        [...singlePlugins.map((plugin) => plugin.name), 'allInOne'].map((name) => [name, { enabled: true }]),
      ),
    },
  },
  {
    name: 'per-node config, scheduling and image values',
    values: {
      image: { registry: 'registry.example.com/kdp', tag: '0.1.0-rc.1' },
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }],
      nodeSelector: { 'node.example.com/pool': 'accelerators' },
      nodeConfig: { label: 'nvidia.com/device-plugin.config' },
      plugins: {
        ...off,
        gpu: {
          enabled: true,
          migStrategy: 'single',
          config: {
            map: { 'a100.yaml': 'version: v1\n', 'default.yaml': 'version: v1\n' },
            default: 'default.yaml',
          },
          resources: { requests: { cpu: '10m', memory: '64Mi' }, limits: { cpu: '1', memory: '128Mi' } },
          priorityClassName: 'system-node-critical',
        },
        usb: { enabled: true, config: { name: 'my-usb-config' } },
      },
      monitor: { enabled: true, podMonitor: { enabled: true }, serviceMonitor: { enabled: true } },
      dra: { usb: { enabled: false } },
    },
  },
];

const rendered = new Map(cases.map((c) => [c.name, helmTemplate(chart, c.values)]));
const objectsOf = (name: string): KubeObject[] => rendered.get(name) ?? [];
const byId = (objects: readonly KubeObject[]): KubeObject[] =>
  [...objects].sort((a, b) => objectId(a).localeCompare(objectId(b)));

// Rules about the shipped defaults that values exist to change: another registry, a ConfigMap directory or an
// existing ConfigMap. Every other rule still holds with those values.
const customised = new Set(['per-node config, scheduling and image values']);
const waived = ['image ghcr.io/kdp-dev', 'each ConfigMap is mounted'];

type Mapping = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const containerOf = (ds: KubeObject): Mapping => (ds['spec'] as Mapping)['template']['spec']['containers'][0];

describe('deploy/helm/kdp with the pinned helm', () => {
  it('passes helm lint --strict (nothing downloaded)', () => {
    expect(runHelm(['lint', '--strict', chart])).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
  });

  it('passes helm lint --strict with every option on', () => {
    expect(
      runHelm([
        'lint',
        '--strict',
        chart,
        '--set',
        'nfd.rules.enabled=true,cdi.enabled=true,dra.gpu.enabled=true,metrics.podMonitor.enabled=true',
      ]),
    ).toMatch(/0 chart\(s\) failed/);
  });

  it('refuses bad values with a message (values.schema.json)', () => {
    expect(() => runHelm(['template', 'kdp', chart, '--set', 'plugins.gpu.enabled=maybe'])).toThrow(
      /plugins\/gpu\/enabled|plugins\.gpu\.enabled/,
    );
    expect(() => runHelm(['template', 'kdp', chart, '--set', 'plugins.tpu.enabled=true'])).toThrow(/tpu/);
    expect(() => runHelm(['template', 'kdp', chart, '--set', 'plugins.gpu.migStrategy=all'])).toThrow(
      /migStrategy/,
    );
    expect(() => runHelm(['template', 'kdp', chart, '--set', 'image.pullPolicy=Sometimes'])).toThrow(
      /pullPolicy/,
    );
  });

  it("has the root package.json's and the released packages' version as its version and appVersion", () => {
    const versionOf = (file: string): string =>
      (JSON.parse(readFileSync(join(repoRoot, file), 'utf8')) as { version: string }).version;
    const version = versionOf('package.json');
    // nx release versions the packages as one fixed group: a release that bumps them fails here until the chart
    // follows.
    expect(versionOf('packages/core/package.json')).toBe(version);
    const meta = parse(readFileSync(join(chart, 'Chart.yaml'), 'utf8')) as {
      version: string;
      appVersion: string;
    };
    expect({ version: meta.version, appVersion: meta.appVersion }).toEqual({ version, appVersion: version });
  });

  it.each(cases.map((c) => [c.name]))('%s: every object validates against its schema, once', (name) => {
    const objects = objectsOf(name);
    expect(objects.length).toBeGreaterThan(0);
    const ids = objects.map(objectId);
    expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([]);
    expect(schemaProblems(objects)).toEqual([]);
  });

  it.each(cases.map((c) => [c.name]))('%s: every plugin DaemonSet keeps the security profile', (name) => {
    const violations = objectsOf(name)
      .filter((object) => object.kind === 'DaemonSet')
      .flatMap((ds) => {
        const component = ds.metadata.labels?.['app.kubernetes.io/component'];
        const rules =
          component === 'device-plugin' ? profileRules : component === 'dra-driver' ? draProfileRules : [];
        return rules
          .filter((rule) => !(customised.has(name) && waived.some((prefix) => rule.name.startsWith(prefix))))
          .flatMap((rule) => rule.check(ds).map((problem) => `${ds.metadata.name}: ${problem}`));
      });
    expect(violations).toEqual([]);
  });

  it.each(cases.filter((c) => c.kustomize !== undefined).map((c) => [c.name, c.kustomize]))(
    '%s: the same objects as kubectl kustomize deploy/%o',
    (name, kustomize) => {
      const expected = kustomizeBuild(
        join(deployDir, kustomize?.dir ?? ''),
        kustomize?.host === undefined ? undefined : join(deployDir, kustomize.host),
      );
      expect(byId(objectsOf(name))).toEqual(byId(expected));
    },
  );

  it('every helm command in deploy/README.md renders (helm template with the same chart, values and namespace)', () => {
    const readme = readFileSync(join(deployDir, 'README.md'), 'utf8');
    const block = /<!-- helm-commands:start -->([\s\S]*?)<!-- helm-commands:end -->/.exec(readme)?.[1] ?? '';
    const commands = block.split('\n').filter((line) => /^(helm|kubectl) /.test(line));
    expect(commands.filter((line) => /^helm (install|upgrade) /.test(line)).length).toBeGreaterThanOrEqual(5);
    for (const line of commands) {
      const [tool, verb, ...rest] = line.split(/\s+/);
      if (tool === 'kubectl' || verb === 'uninstall') {
        expect([
          line,
          /^(kubectl (create|label) namespace kdp-system|helm uninstall kdp --namespace kdp-system)/.test(
            line,
          ),
        ]).toEqual([line, true]);
        continue;
      }
      expect([line, verb === 'install' || verb === 'upgrade', rest[1]]).toEqual([
        line,
        true,
        'deploy/helm/kdp',
      ]);
      const args = rest
        .filter((arg) => arg !== '--reuse-values')
        .map((arg) => (arg === 'deploy/helm/kdp' ? chart : arg));
      expect(() => runHelm(['template', ...args])).not.toThrow();
    }
  });

  it('keeps the all-in-one device plugin off the nodes labelled for any DRA driver (one mode per node)', () => {
    const allInOne = objectsOf('all-in-one beside the GPU DRA driver').find(
      (o) => o.kind === 'DaemonSet' && o.metadata.name === 'kdp-device-plugins',
    ) as KubeObject;
    const terms = (allInOne['spec'] as Mapping)['template']['spec']['affinity']['nodeAffinity'][
      'requiredDuringSchedulingIgnoredDuringExecution'
    ]['nodeSelectorTerms'] as Mapping[];
    expect(terms.length).toBeGreaterThan(1);
    for (const term of terms)
      for (const name of [...singlePlugins.map((plugin) => plugin.name), 'device-plugins'])
        expect(term['matchExpressions']).toContainEqual({
          key: `kdp.dev/${name}.mode`,
          operator: 'NotIn',
          values: ['dra'],
        });
  });

  it('renders each DRA DaemonSet beside its device plugin when both are on, each DeviceClass once', () => {
    const objects = objectsOf('every plugin in both modes, and the all-in-one drivers');
    const daemonSets = objects.filter((o) => o.kind === 'DaemonSet').map((o) => o.metadata.name);
    expect(daemonSets).toEqual(
      expect.arrayContaining([
        ...singlePlugins.map((plugin) => plugin.binary),
        ...draVariants.map((variant) => variant.daemonSet),
      ]),
    );
    const classes = objects.filter((o) => o.kind === 'DeviceClass');
    expect(classes.map((o) => o.metadata.name)).toContain('fpga.kdp.dev');
  });

  it('applies the values: image, tolerations, nodeSelector, per-node config, an existing ConfigMap', () => {
    const objects = objectsOf('per-node config, scheduling and image values');
    const gpu = objects.find(
      (o) => o.kind === 'DaemonSet' && o.metadata.name === 'gpu-device-plugin',
    ) as KubeObject;
    const pod = (gpu['spec'] as Mapping)['template']['spec'] as Mapping;
    expect(containerOf(gpu)['image']).toBe('registry.example.com/kdp/gpu-device-plugin:0.1.0-rc.1');
    expect(containerOf(gpu)['args']).toEqual(
      expect.arrayContaining([
        '--config=/etc/kdp/gpu',
        '--default-config=default.yaml',
        '--node-config-label=nvidia.com/device-plugin.config',
        '--mig-strategy=single',
      ]),
    );
    expect(pod['tolerations']).toContainEqual({
      key: 'dedicated',
      operator: 'Equal',
      value: 'gpu',
      effect: 'NoSchedule',
    });
    expect(pod['nodeSelector']).toEqual({
      'kubernetes.io/os': 'linux',
      'node.example.com/pool': 'accelerators',
    });
    expect(pod['automountServiceAccountToken']).toBe(true);
    expect(
      objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'gpu-device-plugin-config')?.['data'],
    ).toEqual({
      'a100.yaml': 'version: v1\n',
      'default.yaml': 'version: v1\n',
    });
    expect(
      objects.some((o) => o.kind === 'ConfigMap' && o.metadata.name === 'usb-device-plugin-config'),
    ).toBe(false);
    const usb = objects.find(
      (o) => o.kind === 'DaemonSet' && o.metadata.name === 'usb-device-plugin',
    ) as KubeObject;
    expect(JSON.stringify((usb['spec'] as Mapping)['template']['spec']['volumes'])).toContain(
      '"name":"my-usb-config"',
    );
    expect(objects.filter((o) => o.kind === 'ClusterRole').map((o) => o.metadata.name)).toEqual([
      'kdp-node-config-label',
    ]);
  });
});
