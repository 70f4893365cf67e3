import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkFieldNames, type TypedObject } from './check-field-names';
import { deployDir, repoRoot } from './deploy-dir';
import { componentHosts, deployedPlugins, kustomizations } from './kdp-plugins';
import { kustomizationDirs } from './kustomization-dirs';
import { isComponent } from './kustomize-build';
import { objectId, type KubeObject } from './kube-object';
import { kustomizeBuild } from './kustomize-build';
import { kubernetesSchemaVersion, schemaModel } from './schema-models';
import { schemaProblems } from './schema-problems';

const builds = kustomizations.map((dir) => ({ dir, objects: kustomizeBuild(join(deployDir, dir)) }));

function typed(label: string, object: KubeObject): TypedObject {
  const model = schemaModel(object.apiVersion, object.kind);
  if (model === undefined) throw new Error(`${label}: no schema for ${object.apiVersion} ${object.kind}`);
  return { label, value: object, typeModule: model.typeModule, typeName: model.typeName };
}

describe(`every manifest against the Kubernetes ${kubernetesSchemaVersion} OpenAPI schema (kubernetes-models 4.5.1)`, () => {
  it.each(builds)('deploy/$dir renders objects that all validate', ({ objects }) => {
    expect(objects.length).toBeGreaterThan(0);
    for (const object of objects) {
      const model = schemaModel(object.apiVersion, object.kind);
      expect({ id: objectId(object), hasSchema: model !== undefined }).toEqual({
        id: objectId(object),
        hasSchema: true,
      });
      expect(() => model?.validate(object)).not.toThrow();
    }
  });

  it('the schema check rejects a wrong type and a bad enum (it is not a no-op)', () => {
    const ds = structuredClone(
      builds.find((b) => b.dir === 'gpu')?.objects.find((o) => o.kind === 'DaemonSet'),
    ) as KubeObject;
    const model = schemaModel(ds.apiVersion, ds.kind);
    const pod = (
      ds['spec'] as { template: { spec: { containers: [{ ports: [{ containerPort: unknown }] }] } } }
    ).template.spec;
    pod.containers[0].ports[0].containerPort = '9401';
    expect(() => model?.validate(ds)).toThrow('containerPort must be integer');
    const ds2 = structuredClone(
      builds.find((b) => b.dir === 'gpu')?.objects.find((o) => o.kind === 'DaemonSet'),
    ) as KubeObject;
    (ds2['spec'] as { updateStrategy: { type: string } }).updateStrategy.type = 'Rolling';
    expect(() => model?.validate(ds2)).toThrow('must be equal to one of the allowed values');
  });

  it('schemaProblems reports a kind without a schema and an invalid object', () => {
    const ds = structuredClone(
      builds.find((b) => b.dir === 'gpu')?.objects.find((o) => o.kind === 'DaemonSet'),
    ) as KubeObject;
    (ds['spec'] as { updateStrategy: { type: string } }).updateStrategy.type = 'Rolling';
    const unknown: KubeObject = { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g' } };
    expect(schemaProblems([ds, unknown])).toEqual([
      expect.stringMatching(/^apps\/DaemonSet\/kdp-system\/gpu-device-plugin: .*allowed values/),
      'example.com/Gadget//g: no schema for example.com/v1 Gadget',
    ]);
  });

  // The OpenAPI schema admits unknown fields; kubectl apply's strict field validation does not.
  it('holds no field the API does not know, and no mistyped one (TypeScript excess-property check)', () => {
    const seen = new Map<string, TypedObject>();
    for (const { dir, objects } of builds) {
      for (const object of objects)
        seen.set(`${dir} ${objectId(object)}`, typed(`deploy/${dir} ${objectId(object)}`, object));
    }
    expect(checkFieldNames([...seen.values()])).toEqual([]);
  }, 60_000);

  it('the field check finds a misspelt field and a wrong type', () => {
    const ds = structuredClone(
      builds.find((b) => b.dir === 'usb')?.objects.find((o) => o.kind === 'DaemonSet'),
    ) as KubeObject;
    const container = (ds['spec'] as { template: { spec: { containers: [Record<string, unknown>] } } })
      .template.spec.containers[0];
    container['securityContext'] = {
      ...(container['securityContext'] as object),
      readOnlyRootFilesytem: true,
    };
    container['args'] = 'serve';
    const problems = checkFieldNames([typed('usb', ds)]);
    expect(problems.join('\n')).toMatch(
      /usb: .*readOnlyRootFilesytem.*' does not exist in type 'ISecurityContext'/,
    );
    expect(problems.join('\n')).toMatch(/usb: Type 'string' is not assignable to type 'string\[\]'/);
  }, 60_000);
});

describe('every kustomization directory under deploy/, rendered by the pinned kubectl kustomize', () => {
  const dirs = kustomizationDirs(deployDir);

  it('finds them all (31 and more), and every Component has a build to render it over', () => {
    expect(dirs.length).toBeGreaterThanOrEqual(31);
    expect(dirs).toEqual(expect.arrayContaining([...kustomizations, 'dra/base', 'components/cdi']));
    const components = dirs.filter((dir) => isComponent(join(deployDir, dir)));
    expect(components.sort()).toEqual(Object.keys(componentHosts).sort());
  });

  it.each(dirs)('deploy/%s renders, and every object validates against its schema', (dir) => {
    const host = componentHosts[dir];
    const objects = kustomizeBuild(
      join(deployDir, dir),
      host === undefined ? undefined : join(deployDir, host),
    );
    expect(objects.length).toBeGreaterThan(0);
    expect(schemaProblems(objects)).toEqual([]);
  });
});

describe('the namespace and the service account', () => {
  const base = builds.find((b) => b.dir === 'base')?.objects ?? [];

  it('kdp-system enforces Pod Security "privileged" (hostPath volumes fail baseline), nothing looser elsewhere', () => {
    const namespace = base.find((o) => o.kind === 'Namespace');
    expect(namespace?.metadata.name).toBe('kdp-system');
    expect(namespace?.metadata.labels?.['pod-security.kubernetes.io/enforce']).toBe('privileged');
  });

  it('the service account mounts no token, and every plugin and the monitor run in kdp-system', () => {
    expect(base.find((o) => o.kind === 'ServiceAccount')?.['automountServiceAccountToken']).toBe(false);
    const all = builds.find((b) => b.dir === 'all')?.objects ?? [];
    for (const object of all.filter((o) => o.kind !== 'Namespace'))
      expect([objectId(object), object.metadata.namespace]).toEqual([objectId(object), 'kdp-system']);
    expect(
      all
        .filter((o) => o.kind === 'DaemonSet')
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual([
      'device-monitor',
      'fpga-device-plugin',
      'gpu-device-plugin',
      'infiniband-device-plugin',
      'sriov-device-plugin',
      'usb-device-plugin',
    ]);
  });
});

describe('images', () => {
  it.each(deployedPlugins)("$binary's image tag is its package's version", ({ packageDir, binary }) => {
    const { version } = JSON.parse(
      readFileSync(join(repoRoot, 'packages', packageDir, 'package.json'), 'utf8'),
    ) as {
      version: string;
    };
    const images = builds
      .flatMap((b) => b.objects)
      .filter((o) => o.kind === 'DaemonSet' && o.metadata.name === binary)
      .map((o) => JSON.stringify(o).match(/"image":"([^"]+)"/)?.[1]);
    expect(images.length).toBeGreaterThan(0);
    expect(new Set(images)).toEqual(new Set([`ghcr.io/kdp-dev/${binary}:${version}`]));
  });
});
