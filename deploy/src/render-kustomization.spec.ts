import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { deployDir } from './deploy-dir';
import { kustomizations } from './kdp-plugins';
import { objectId, type KubeObject } from './kube-object';
import { parseYamlDocuments } from './parse-yaml-documents';
import { renderKustomization } from './render-kustomization';

/** Writes files (path → text) under a fresh temp dir and returns it. */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'kdp-kz-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const daemonSet = `apiVersion: apps/v1
kind: DaemonSet
metadata: { name: p }
spec:
  selector: { matchLabels: { app: p } }
  template:
    metadata: { labels: { app: p } }
    spec:
      containers:
        - name: p
          image: ghcr.io/x/p:1
          args: [serve]
          volumeMounts: []
      volumes: []
`;
const configMap = 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: c }\ndata: { a: "1" }\n';
const namespace = 'apiVersion: v1\nkind: Namespace\nmetadata: { name: ns }\n';

describe('renderKustomization', () => {
  const roots: string[] = [];
  const make = (files: Record<string, string>): string => {
    const root = tree(files);
    roots.push(root);
    return root;
  };
  afterAll(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));

  it('collects file and directory resources and sets the namespace on namespaced objects only', () => {
    const root = make({
      'base/kustomization.yaml': 'resources: [ns.yaml]\n',
      'base/ns.yaml': namespace,
      'app/kustomization.yaml': 'namespace: ns\nresources: [../base, ds.yaml, cm.yaml]\n',
      'app/ds.yaml': daemonSet,
      'app/cm.yaml': `${configMap}---\n`,
    });
    const objects = renderKustomization(join(root, 'app'));
    expect(objects.map(objectId)).toEqual(['/Namespace//ns', 'apps/DaemonSet/ns/p', '/ConfigMap/ns/c']);
  });

  it('adds labels to metadata, and to pod templates only with includeTemplates', () => {
    const root = make({
      'kustomization.yaml':
        'resources: [ds.yaml]\nlabels:\n  - pairs: { a: "1" }\n  - pairs: { b: "2" }\n    includeTemplates: true\n',
      'ds.yaml': daemonSet,
    });
    const [ds] = renderKustomization(root) as [KubeObject];
    expect(ds.metadata.labels).toEqual({ a: '1', b: '2' });
    const spec = ds['spec'] as { selector: unknown; template: { metadata: { labels: unknown } } };
    expect(spec.template.metadata.labels).toEqual({ app: 'p', b: '2' });
    expect(spec.selector).toEqual({ matchLabels: { app: 'p' } });
  });

  it('sets image tags and names', () => {
    const root = make({
      'kustomization.yaml':
        'resources: [ds.yaml]\nimages:\n  - { name: ghcr.io/x/p, newName: reg.example/p, newTag: "2.0" }\n',
      'ds.yaml': daemonSet,
    });
    const [ds] = renderKustomization(root) as [KubeObject];
    expect(JSON.stringify(ds)).toContain('"image":"reg.example/p:2.0"');
  });

  it('applies a component: its resources join, and its JSON 6902 patch reaches the parent resources', () => {
    const root = make({
      'app/kustomization.yaml': 'resources: [ds.yaml]\ncomponents: [../comp]\n',
      'app/ds.yaml': daemonSet,
      'comp/kustomization.yaml': `apiVersion: kustomize.config.k8s.io/v1alpha1
kind: Component
resources: [cm.yaml]
patches:
  - target: { kind: DaemonSet }
    patch: |-
      - { op: add, path: /spec/template/spec/containers/0/args/-, value: --x=1 }
`,
      'comp/cm.yaml': configMap,
    });
    const objects = renderKustomization(join(root, 'app'));
    expect(objects.map((o) => o.kind)).toEqual(['DaemonSet', 'ConfigMap']);
    expect(JSON.stringify(objects[0])).toContain('"args":["serve","--x=1"]');
  });

  it('applies a strategic-merge patch file to the one object it names', () => {
    const root = make({
      'kustomization.yaml': 'resources: [cm.yaml]\npatches:\n  - path: p.yaml\n',
      'cm.yaml': configMap,
      'p.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: c }\ndata: { a: "2", b: "3" }\n',
    });
    expect(renderKustomization(root)[0]?.['data']).toEqual({ a: '2', b: '3' });
  });

  it.each([
    [
      { 'kustomization.yaml': 'resources: [a.yaml, b.yaml]\n', 'a.yaml': configMap, 'b.yaml': configMap },
      'already registered id',
    ],
    [{ 'kustomization.yaml': 'commonLabels: { a: b }\n' }, 'field "commonLabels" is not supported'],
    [{ 'kustomization.yaml': 'resources: [gone.yaml]\n' }, 'resource gone.yaml does not exist'],
    [
      { 'kustomization.yaml': 'resources: [../outside.yaml]\n', '../outside.yaml': configMap },
      'is not in or below',
    ],
    [
      { 'kustomization.yaml': 'components: [c]\n', 'c/kustomization.yaml': 'resources: []\n' },
      'expected kind Component',
    ],
    [
      { 'kustomization.yaml': 'resources: [bad.yaml]\n', 'bad.yaml': 'kind: ConfigMap\n' },
      'apiVersion and kind are required',
    ],
    [{ 'kustomization.yaml': 'resources: [bad.yaml]\n', 'bad.yaml': 'a: [\n' }, 'bad.yaml'],
    [
      { 'kustomization.yaml': 'resources: [cm.yaml]\npatches:\n  - patch: "[]"\n', 'cm.yaml': configMap },
      'a JSON 6902 patch needs a target',
    ],
    [
      {
        'kustomization.yaml': 'resources: [cm.yaml]\npatches:\n  - path: p.yaml\n',
        'cm.yaml': configMap,
        'p.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: other }\n',
      },
      'must match exactly one object, matched 0',
    ],
  ])('refuses a broken kustomization with a clear error (%#)', (files, message) => {
    const root = make({ 'k/.keep': '' });
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, 'k', path)), { recursive: true });
      writeFileSync(join(root, 'k', path), text);
    }
    expect(() => renderKustomization(join(root, 'k'))).toThrow(message);
  });
});

/** `kubectl kustomize` where installed (it is not a Debian package, so CI machines may lack it). */
function kubectlKustomize(): ((dir: string) => string) | undefined {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
  } catch {
    return undefined;
  }
  return (dir) => execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8', maxBuffer: 16 << 20 });
}

const kubectl = kubectlKustomize();
const describeWithKubectl = kubectl === undefined ? describe.skip : describe;

describeWithKubectl('renderKustomization against kubectl kustomize (skipped where kubectl is absent)', () => {
  it.each(kustomizations)('deploy/%s renders the same objects as kubectl kustomize', (dir) => {
    const path = join(deployDir, dir);
    const ours = new Map(renderKustomization(path).map((object) => [objectId(object), object]));
    const theirs = new Map(
      parseYamlDocuments(kubectl?.(path) ?? '', `kubectl kustomize ${dir}`).map((value) => {
        const object = value as KubeObject;
        return [objectId(object), object];
      }),
    );
    expect([...ours.keys()].sort()).toEqual([...theirs.keys()].sort());
    for (const [id, object] of theirs) expect({ id, object: ours.get(id) }).toEqual({ id, object });
  });
});
