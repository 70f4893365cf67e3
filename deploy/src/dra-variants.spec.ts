import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PluginDevice } from '@kdp/core';
import { createSampleNode, type SampleNode } from '@kdp/demo';
import { toSliceDevice } from '@kdp/dra';
import {
  createApiServer,
  createKubeletSim,
  runDraConformance,
  type ApiRequestAttributes,
} from '@kdp/kubelet-sim';
import { bundleEntry, type EntryBundle } from '@kdp/kubelet-sim/testing';
import { celAttributeRefs, celDrivers, celUnrecognised, type CelAttributeRef } from './cel-attribute-refs';
import { checkDeviceClass } from './check-device-class';
import { checkFieldNames, type TypedObject } from './check-field-names';
import { deployDir, repoRoot } from './deploy-dir';
import { draVariants, type DraVariant } from './kdp-plugins';
import { objectId, type KubeObject } from './kube-object';
import { parse as parseCel, run as runCel, type CelInput } from '@bufbuild/cel';
import { parse } from 'yaml';
import { parseYamlDocuments } from './parse-yaml-documents';
import { rbacAllows, type PolicyRule } from './rbac-rules';
import { draProfileRules, profileRules } from './profile-rules';
import { kustomizeBuild } from './kustomize-build';
import { flagValues, podSpecOf } from './resolved-args';
import { schemaModel } from './schema-models';

// deploy/dra/<plugin>: the plugin as a DRA driver (`serve --mode dra`). Rendered here as kustomize would, then
// checked: the DaemonSet's flags, environment and mounts; the RBAC and the admission policy; the DeviceClasses'
// CEL against the attributes the drivers really publish (each plugin's `discover` on the demo's sample node, made
// slice devices by @kdp/dra's own toSliceDevice); and every object against its schema (DeviceClass structurally:
// the vendored v1.33 schema has no resource.k8s.io/v1).

type Mapping = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const NAMESPACE = 'kdp-system';
const STANDARD_DOMAIN = 'resource.kubernetes.io';

const builds = draVariants.map((variant) => ({
  variant,
  objects: kustomizeBuild(join(deployDir, variant.dir)),
}));
/** The variants serving one driver (each plugin's own DaemonSet), with that driver's name. */
const singleBuilds = builds
  .filter(({ variant }) => variant.drivers.length === 1)
  .map((build) => ({ ...build, driver: build.variant.drivers[0] as string }));
const examples = new Map(
  singleBuilds.map(({ variant }) => {
    const file = join(deployDir, 'dra', 'examples', `${variant.plugin.name}-claims.yaml`);
    return [variant.plugin.name, parseYamlDocuments(readFileSync(file, 'utf8'), file) as KubeObject[]];
  }),
);

const find = (objects: readonly KubeObject[], kind: string, name?: string): KubeObject => {
  const found = objects.find((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
  if (found === undefined) throw new Error(`no ${kind} ${name ?? ''}`);
  return found;
};
const daemonSetOf = (variant: DraVariant): KubeObject =>
  find(builds.find((b) => b.variant === variant)?.objects ?? [], 'DaemonSet', variant.daemonSet);
const podOf = (ds: KubeObject): Mapping => (ds['spec'] as Mapping)['template']['spec'];
const { objects: gpuObjects, variant: gpu } = builds[0] as (typeof builds)[number];

describe.each(builds)('deploy/$variant.dir', ({ variant, objects }) => {
  const ds = daemonSetOf(variant);
  const pod = podSpecOf(ds);
  const container = pod.containers[0] as NonNullable<(typeof pod.containers)[0]>;
  const args = container.args ?? [];

  it('holds the namespace, the driver with its account and binding, the shared RBAC and policy, the classes', () => {
    const ids = objects.map(objectId).sort();
    expect(ids).toEqual(
      expect.arrayContaining([
        '/Namespace//kdp-system',
        `/ServiceAccount/kdp-system/${variant.daemonSet}`,
        ...variant.plugin.configs.map((config) => `/ConfigMap/kdp-system/${config.configMap}`),
        `apps/DaemonSet/kdp-system/${variant.daemonSet}`,
        'rbac.authorization.k8s.io/ClusterRole//kdp-dra-driver',
        `rbac.authorization.k8s.io/ClusterRoleBinding//kdp-${variant.plugin.name}-dra-driver`,
        'admissionregistration.k8s.io/ValidatingAdmissionPolicy//kdp-dra-driver-resourceslices',
        'admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding//kdp-dra-driver-resourceslices',
        ...variant.drivers.map((driver) => `resource.k8s.io/DeviceClass//${driver}`),
      ]),
    );
    // Cluster-scoped objects carry no namespace (kustomize's namespace transformer must not reach them).
    for (const object of objects.filter((o) => ['DeviceClass', 'ClusterRole'].includes(o.kind)))
      expect([objectId(object), object.metadata.namespace]).toEqual([objectId(object), undefined]);
  });

  it('runs `serve --mode dra` with the kubelet directories, CDI and no device-plugin flag', () => {
    expect(args.slice(0, 2)).toEqual(['serve', '--mode=dra']);
    expect(flagValues(args, '--plugins-registry-dir')).toEqual(['/var/lib/kubelet/plugins_registry']);
    expect(flagValues(args, '--dra-plugins-dir')).toEqual(['/var/lib/kubelet/plugins']);
    expect(flagValues(args, '--cdi-dir')).toEqual(['/var/run/cdi']);
    expect(flagValues(args, '--device-plugin-dir')).toEqual([]);
    expect(flagValues(args, '--registration')).toEqual([]);
    expect(flagValues(args, '--metrics-address')).toEqual([`0.0.0.0:${variant.plugin.metricsPort}`]);
  });

  it('mounts the kubelet directories and /var/run/cdi read-write at their host paths (the kubelet dials them there)', () => {
    for (const path of ['/var/lib/kubelet/plugins_registry', '/var/lib/kubelet/plugins', '/var/run/cdi']) {
      const volume = pod.volumes?.find((v) => v.hostPath?.path === path);
      const mount = container.volumeMounts?.find((m) => m.name === volume?.name);
      expect({ path, mountPath: mount?.mountPath, readOnly: mount?.readOnly ?? false }).toEqual({
        path,
        mountPath: path,
        readOnly: false,
      });
    }
  });

  it('takes NODE_NAME and POD_UID from the downward API and mounts its own account token', () => {
    expect(container.env).toEqual(
      expect.arrayContaining([
        { name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
        { name: 'POD_UID', valueFrom: { fieldRef: { fieldPath: 'metadata.uid' } } },
      ]),
    );
    expect(podOf(ds)['serviceAccountName']).toBe(variant.daemonSet);
    expect(podOf(ds)['automountServiceAccountToken']).toBe(true);
    expect(
      find(objects, 'ServiceAccount', variant.daemonSet)['automountServiceAccountToken'],
    ).toBeUndefined();
  });

  it.each(draProfileRules.map((rule) => [rule.name, rule]))('profile: %s', (_name, rule) => {
    expect(rule.check(ds)).toEqual([]);
  });

  it('binds its service account, in the namespace it lives in, to the shared ClusterRole', () => {
    const binding = find(objects, 'ClusterRoleBinding', `kdp-${variant.plugin.name}-dra-driver`);
    const account = find(objects, 'ServiceAccount', variant.daemonSet);
    expect(account.metadata.namespace).toBe(NAMESPACE);
    expect(binding['roleRef']).toEqual({
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: 'kdp-dra-driver',
    });
    expect(binding['subjects']).toEqual([
      { kind: 'ServiceAccount', name: variant.daemonSet, namespace: NAMESPACE },
    ]);
  });
});

describe('the DRA profile replaces exactly five rules of the device plugins, each for a reason', () => {
  it('keeps every other rule as it is', () => {
    const replaced = profileRules.filter((rule, i) => draProfileRules[i] !== rule).map((rule) => rule.name);
    expect(replaced.map((name) => name.split(' ').slice(0, 2).join(' '))).toEqual([
      'no service-account',
      'metrics port',
      'RollingUpdate, maxUnavailable',
      'hostPaths limited',
      'placed by',
    ]);
    expect(draProfileRules).toHaveLength(profileRules.length);
  });

  const mutations: [string, (ds: KubeObject) => void][] = [
    ['service-account token', (ds) => (podOf(ds)['automountServiceAccountToken'] = false)],
    [
      'hostPaths',
      (ds) =>
        podOf(ds)['volumes'].push({ name: 'dp', hostPath: { path: '/var/lib/kubelet/device-plugins' } }),
    ],
    [
      'hostPaths',
      (ds) =>
        (podOf(ds)['volumes'] = (podOf(ds)['volumes'] as Mapping[]).filter((v) => v['name'] !== 'plugins')),
    ],
    [
      'placed only',
      (ds) =>
        podOf(ds)['affinity']['nodeAffinity']['requiredDuringSchedulingIgnoredDuringExecution'][
          'nodeSelectorTerms'
        ].push({ matchExpressions: [{ key: 'kdp.dev/gpu.present', operator: 'In', values: ['true'] }] }),
    ],
    [
      'placed only',
      (ds) =>
        (
          podOf(ds)['affinity']['nodeAffinity']['requiredDuringSchedulingIgnoredDuringExecution'][
            'nodeSelectorTerms'
          ][0]['matchExpressions'] as Mapping[]
        ).pop(),
    ],
    ['metrics port not published', (ds) => (podOf(ds)['containers'][0]['ports'][0]['hostPort'] = 9401)],
    ['metrics port not published', (ds) => (podOf(ds)['hostNetwork'] = true)],
    [
      'RollingUpdate with maxSurge 1',
      (ds) =>
        ((ds['spec'] as Mapping)['updateStrategy']['rollingUpdate'] = { maxUnavailable: 1, maxSurge: 0 }),
    ],
  ];
  it.each(mutations)('a DaemonSet breaking "%s" fails that rule only', (prefix, mutate) => {
    const copy = structuredClone(daemonSetOf(gpu));
    mutate(copy);
    const failing = draProfileRules.filter((rule) => rule.check(copy).length > 0).map((rule) => rule.name);
    expect(failing).toHaveLength(1);
    expect(failing[0]?.startsWith(prefix)).toBe(true);
  });
});

describe('RBAC: what the driver sends, nothing more', () => {
  it('the ClusterRole grants ResourceSlices (no patch, no deletecollection), ResourceClaims get, their status patch (network status) and Nodes get', () => {
    const role = find(gpuObjects, 'ClusterRole', 'kdp-dra-driver');
    expect(role['rules']).toEqual([
      {
        apiGroups: ['resource.k8s.io'],
        resources: ['resourceslices'],
        verbs: ['get', 'list', 'watch', 'create', 'update', 'delete'],
      },
      { apiGroups: ['resource.k8s.io'], resources: ['resourceclaims'], verbs: ['get'] },
      { apiGroups: ['resource.k8s.io'], resources: ['resourceclaims/status'], verbs: ['patch'] },
      { apiGroups: [''], resources: ['nodes'], verbs: ['get'] },
    ]);
  });
});

describe('the ValidatingAdmissionPolicy: each driver writes only its own node’s slices of its own driver', () => {
  const policy = find(gpuObjects, 'ValidatingAdmissionPolicy', 'kdp-dra-driver-resourceslices');
  const spec = policy['spec'] as Mapping;
  const variables = new Map(
    (spec['variables'] as { name: string; expression: string }[]).map((v) => [v.name, v.expression]),
  );
  const validations = (spec['validations'] as { expression: string }[]).map((v) => v.expression).join('\n');
  const accounts = draVariants.map((v) => `system:serviceaccount:${NAMESPACE}:${v.daemonSet}`);

  it('matches every write of ResourceSlices and fails closed', () => {
    expect(spec['failurePolicy']).toBe('Fail');
    expect(spec['matchConstraints']['resourceRules']).toEqual([
      {
        apiGroups: ['resource.k8s.io'],
        apiVersions: ['*'],
        operations: ['CREATE', 'UPDATE', 'DELETE'],
        resources: ['resourceslices'],
      },
    ]);
    const binding = find(gpuObjects, 'ValidatingAdmissionPolicyBinding', 'kdp-dra-driver-resourceslices');
    expect(binding['spec']).toEqual({ policyName: policy.metadata.name, validationActions: ['Deny'] });
  });

  it('applies to exactly the drivers’ service accounts, and maps each to its own driver name', () => {
    const condition = (spec['matchConditions'] as { expression: string }[])[0]?.expression ?? '';
    expect([...condition.matchAll(/'([^']+)'/g)].map((m) => m[1])).toEqual(accounts);
    const driversOf = variables.get('driversOf') ?? '';
    const entries = [...driversOf.matchAll(/'([^']+)':\s*\[([^\]]*)\]/g)].map((m) => [
      m[1],
      [...(m[2] ?? '').matchAll(/'([^']+)'/g)].map((d) => d[1]),
    ]);
    expect(entries).toEqual(draVariants.map((v, i) => [accounts[i], v.drivers]));
  });

  it('compares spec.nodeName (of oldObject on DELETE and UPDATE) with the node-name claim of the token', () => {
    expect(variables.get('userNodeName')).toContain(
      "request.userInfo.extra[?'authentication.kubernetes.io/node-name']",
    );
    expect(variables.get('slice')).toBe('request.operation == "DELETE" ? oldObject : object');
    expect(variables.get('objectNodeName')).toContain('variables.slice.spec.?nodeName');
    expect(validations).toContain("variables.userNodeName != ''");
    expect(validations).toContain('variables.objectNodeName == variables.userNodeName');
    expect(validations).toContain("oldObject.spec.?nodeName.orValue('') == variables.userNodeName");
    expect(validations).toContain(
      'variables.slice.spec.driver in variables.driversOf[request.userInfo.username]',
    );
  });
});

/** The attributes each driver publishes: the plugin's `discover` on the sample node, through toSliceDevice. */
const published = new Map<string, { names: Map<string, Set<string>>; values: Map<string, Set<string>> }>();
/** Each driver's published devices as CEL sees them: `device.driver`, `device.attributes[domain][name]`. */
const celDevices = new Map<string, { driver: string; attributes: Map<string, Map<string, unknown>> }[]>();
let sample: SampleNode;
const bundles: EntryBundle[] = [];

function discover(bundle: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, NODE_PATH: join(repoRoot, 'node_modules') };
    execFile(
      process.execPath,
      [bundle, 'discover', '--output', 'json', ...args],
      { env, timeout: 60_000 },
      (e, out) => (e === null ? resolve(out) : reject(e)),
    );
  });
}

type PluginName = keyof SampleNode['configs'];
const bundleOf = new Map<DraVariant, EntryBundle>();

beforeAll(async () => {
  sample = createSampleNode();
  for (const variant of draVariants) {
    const bundle = bundleEntry(join(repoRoot, 'packages', variant.plugin.packageDir, 'src', 'main.ts'), {
      external: ['koffi', 'usb'],
    });
    bundles.push(bundle);
    bundleOf.set(variant, bundle);
  }
  for (const { variant, driver } of singleBuilds) {
    const name = variant.plugin.name as PluginName;
    const bundle = bundleOf.get(variant) as EntryBundle;
    const out = await discover(bundle.path, [
      `--sysfs-root=${sample.sysfsRoot}`,
      `--dev-root=${sample.devRoot}`,
      ...(variant.plugin.procfs ? [`--proc-root=${sample.procRoot}`] : []),
      `--config=${sample.configs[name]}`,
    ]);
    const { resources } = JSON.parse(out) as {
      resources: { resourceName: string; devices: PluginDevice<unknown>[] }[];
    };
    const names = new Map<string, Set<string>>([
      [driver, new Set()],
      [STANDARD_DOMAIN, new Set()],
    ]);
    const values = new Map<string, Set<string>>();
    for (const resource of resources) {
      for (const device of resource.devices) {
        const slice = toSliceDevice(resource.resourceName, {
          ...device,
          ...(device.pciAddress === null ? { pciAddress: undefined } : {}),
        } as PluginDevice<unknown>);
        const own = new Map<string, unknown>();
        const standard = new Map<string, unknown>();
        if (slice.pciBusId !== undefined) standard.set('pciBusID', slice.pciBusId);
        if (slice.pcieRoot !== undefined) standard.set('pcieRoot', slice.pcieRoot);
        const attributes = new Map([
          [driver, own],
          [STANDARD_DOMAIN, standard],
        ]);
        celDevices.set(driver, [...(celDevices.get(driver) ?? []), { driver, attributes }]);
        for (const [key, value] of Object.entries(slice.attributes ?? {})) {
          // CEL ints are 64-bit: the evaluator takes them as bigint.
          own.set(key, typeof value === 'number' ? BigInt(value) : value);
          names.get(driver)?.add(key);
          if (!values.has(key)) values.set(key, new Set());
          values.get(key)?.add(String(value));
        }
        if (slice.pciBusId !== undefined) names.get(STANDARD_DOMAIN)?.add('pciBusID');
        if (slice.pcieRoot !== undefined) names.get(STANDARD_DOMAIN)?.add('pcieRoot');
      }
    }
    published.set(driver, { names, values });
  }
}, 240_000);

afterAll(() => {
  for (const bundle of bundles) bundle.remove();
  sample.remove();
});

/** The CEL expressions of a DeviceClass or a ResourceClaimTemplate, with the class each request names. */
function selectorsOf(object: KubeObject): { expression: string; deviceClassName?: string }[] {
  const spec = object['spec'] as Mapping;
  if (object.kind === 'DeviceClass')
    return (spec['selectors'] as Mapping[]).map((s) => ({ expression: s['cel']['expression'] as string }));
  return (spec['spec']['devices']['requests'] as Mapping[]).flatMap((request) =>
    ((request['exactly']['selectors'] ?? []) as Mapping[]).map((s) => ({
      expression: s['cel']['expression'] as string,
      deviceClassName: request['exactly']['deviceClassName'] as string,
    })),
  );
}

/** Formats of attribute values the classes compare with literals, each checked against what is published. */
const formats: Record<string, Record<string, RegExp>> = {
  'gpu.kdp.dev': { vendor: /^0x[0-9a-f]{4}$/ },
  'sriov.kdp.dev': { vendor: /^[0-9a-f]{4}$/ },
  'infiniband.kdp.dev': { vendor: /^0x[0-9a-f]{4}$/ },
  'usb.kdp.dev': { vendor: /^[0-9a-f]{4}$/, product: /^[0-9a-f]{4}$/ },
  'fpga.kdp.dev': { vendor: /^0x[0-9a-f]{4}$/ },
};

/** The resource prefix of a configuration entry without one (SR-IOV's and InfiniBand's `resourceName` entries). */
const defaultPrefix: Record<string, string> = { 'sriov.kdp.dev': 'intel.com', 'infiniband.kdp.dev': 'rdma' };

/** A ConfigMap's text, with the resource names its `resourcePrefix`/`resourceName` entries make, one a line. */
function configResources(configMap: KubeObject, driver: string): string {
  const data = (configMap['data'] ?? {}) as Record<string, string>;
  const names: string[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (typeof value === 'object' && value !== null) {
      const entry = value as Record<string, unknown>;
      if (typeof entry['resourceName'] === 'string')
        names.push(`${String(entry['resourcePrefix'] ?? defaultPrefix[driver])}/${entry['resourceName']}`);
      Object.values(entry).forEach(walk);
    }
  };
  for (const text of Object.values(data)) walk(parse(text));
  return [JSON.stringify(data), ...names].join('\n');
}

/** What is wrong with an attribute a selector of `driver`'s classes or claims reads. */
function refProblems(driver: string, ref: CelAttributeRef, configText: string): string[] {
  const known = published.get(driver)?.names.get(ref.domain);
  if (known === undefined) return [`${ref.domain}: not the driver's domain nor ${STANDARD_DOMAIN}`];
  if (!known.has(ref.name)) return [`${ref.domain}.${ref.name} is not published (${[...known].join(', ')})`];
  const problems: string[] = [];
  const format = formats[driver]?.[ref.name];
  if (ref.equals !== undefined && format !== undefined && !format.test(ref.equals))
    problems.push(`${ref.name} == '${ref.equals}' does not have the published format ${String(format)}`);
  if (ref.equals !== undefined && ref.name === 'resource' && !configText.includes(ref.equals))
    problems.push(`resource ${ref.equals} is not in the plugin's ConfigMap`);
  return problems;
}

describe.each(singleBuilds)('the DeviceClasses of $driver', ({ variant, driver, objects }) => {
  const classes = objects.filter((o) => o.kind === 'DeviceClass');
  const configText = configResources(find(objects, 'ConfigMap'), driver);

  it('select only the driver’s devices, and read only attributes it publishes, in their formats', () => {
    expect(classes.length).toBeGreaterThan(1);
    const problems: string[] = [];
    for (const object of classes) {
      for (const { expression } of selectorsOf(object)) {
        const where = `DeviceClass ${object.metadata.name}`;
        if (JSON.stringify(celDrivers(expression)) !== JSON.stringify([driver]))
          problems.push(`${where}: must test device.driver == '${driver}' once`);
        for (const use of celUnrecognised(expression)) problems.push(`${where}: unrecognised ${use}`);
        for (const ref of celAttributeRefs(expression))
          problems.push(...refProblems(driver, ref, configText).map((p) => `${where}: ${p}`));
      }
    }
    expect(problems).toEqual([]);
  });

  it('compile and run as CEL: the catch-all class selects every published device, none another driver’s', () => {
    const selects = (expression: string, device: unknown): boolean => {
      parseCel(expression); // throws on a syntax error; a runtime error (a missing attribute) is no match
      return runCel(expression, { device: device as CelInput }) === true;
    };
    const own = celDevices.get(driver) ?? [];
    const others = [...celDevices].filter(([name]) => name !== driver).flatMap(([, devices]) => devices);
    expect(own.length).toBeGreaterThan(0);
    const problems: string[] = [];
    for (const object of classes) {
      for (const { expression } of selectorsOf(object)) {
        const name = object.metadata.name;
        if (name === driver && !own.every((device) => selects(expression, device)))
          problems.push(`${name} misses a device of its driver`);
        if (others.some((device) => selects(expression, device)))
          problems.push(`${name} selects another driver's device`);
      }
    }
    expect(problems).toEqual([]);
    expect(selects(`device.driver == '${driver}'`, others[0])).toBe(false);
    expect(() => selects(`device.driver == `, own[0])).toThrow();
  });

  it('the published values the formats describe have those formats (the format table is not made up)', () => {
    for (const [name, format] of Object.entries(formats[driver] ?? {})) {
      const values = [...(published.get(driver)?.values.get(name) ?? [])];
      expect(values.length).toBeGreaterThan(0);
      for (const value of values) expect([name, value, format.test(value)]).toEqual([name, value, true]);
    }
  });

  it('a class with extendedResourceName selects exactly that resource; one class per extended resource', () => {
    const extended = classes.filter((o) => (o['spec'] as Mapping)['extendedResourceName'] !== undefined);
    // FPGA resource names carry the loaded function's IDs: no one name stands for a class's devices.
    expect(extended.length > 0).toBe(driver !== 'fpga.kdp.dev');
    for (const object of extended) {
      const name = (object['spec'] as Mapping)['extendedResourceName'] as string;
      const refs = selectorsOf(object).flatMap(({ expression }) => celAttributeRefs(expression));
      expect([object.metadata.name, refs.filter((r) => r.name === 'resource').map((r) => r.equals)]).toEqual([
        object.metadata.name,
        [name],
      ]);
    }
    const names = extended.map((o) => (o['spec'] as Mapping)['extendedResourceName'] as string);
    expect(new Set(names).size).toBe(names.length);
  });

  it('the example claims use these classes and published attributes', () => {
    const templates = (examples.get(variant.plugin.name) ?? []).filter(
      (o) => o.kind === 'ResourceClaimTemplate',
    );
    expect(templates.length).toBeGreaterThan(0);
    const classNames = new Set(classes.map((o) => o.metadata.name));
    const problems: string[] = [];
    for (const template of templates) {
      for (const { expression, deviceClassName } of selectorsOf(template)) {
        if (!classNames.has(deviceClassName ?? '')) problems.push(`${deviceClassName}: no such class`);
        for (const use of celUnrecognised(expression)) problems.push(`unrecognised ${use}`);
        for (const ref of celAttributeRefs(expression))
          problems.push(...refProblems(driver, ref, configText));
      }
      const constraints = ((template['spec'] as Mapping)['spec']['devices']['constraints'] ??
        []) as Mapping[];
      for (const constraint of constraints) {
        const qualified = constraint['matchAttribute'] as string;
        const slash = qualified.lastIndexOf('/');
        const ref = { domain: qualified.slice(0, slash), name: qualified.slice(slash + 1) };
        problems.push(...refProblems(driver, ref, configText));
      }
    }
    expect(problems).toEqual([]);
  });

  it('the attribute check refuses another driver’s domain, an unpublished name and a wrong format', () => {
    expect(refProblems(driver, { domain: 'other.kdp.dev', name: 'resource' }, configText)).toHaveLength(1);
    expect(refProblems(driver, { domain: driver, name: 'vendorID' }, configText)).toEqual([
      expect.stringContaining('is not published'),
    ]);
    expect(refProblems(driver, { domain: driver, name: 'vendor', equals: 'NVIDIA' }, configText)).toEqual([
      expect.stringContaining('published format'),
    ]);
    expect(
      refProblems(driver, { domain: driver, name: 'resource', equals: 'example.com/none' }, configText),
    ).toEqual([expect.stringContaining("not in the plugin's ConfigMap")]);
  });
});

describe('deploy/dra/device-plugins: the all-in-one drivers', () => {
  const allInOneBuild = builds.find(({ variant }) => variant.drivers.length > 1);

  it('serve every single driver, and ship each single driver’s DeviceClasses, unchanged', () => {
    expect(allInOneBuild?.variant.drivers).toEqual(singleBuilds.map(({ driver }) => driver));
    const classes = (objects: readonly KubeObject[]): KubeObject[] =>
      objects.filter((o) => o.kind === 'DeviceClass').sort((a, b) => objectId(a).localeCompare(objectId(b)));
    expect(classes(allInOneBuild?.objects ?? [])).toEqual(
      classes(singleBuilds.flatMap(({ objects }) => objects)),
    );
  });
});

describe('every DRA manifest validates', () => {
  const all = [
    ...builds.flatMap(({ variant, objects }) => objects.map((object) => ({ where: variant.dir, object }))),
    ...[...examples].flatMap(([name, objects]) =>
      objects.map((object) => ({ where: `dra/examples/${name}`, object })),
    ),
  ];

  it('against the v1.33 schema where it has the kind, DeviceClasses structurally (v1 is not in it)', () => {
    const unchecked: string[] = [];
    for (const { where, object } of all) {
      const model = schemaModel(object.apiVersion, object.kind);
      if (model !== undefined) expect(() => model.validate(object)).not.toThrow();
      else if (object.kind === 'DeviceClass')
        expect([where, objectId(object), checkDeviceClass(object)]).toEqual([where, objectId(object), []]);
      else unchecked.push(`${where} ${objectId(object)}`);
    }
    // ResourceClaimTemplates (examples only) are checked by their use above, not by a schema.
    expect(unchecked.every((id) => id.includes('ResourceClaimTemplate'))).toBe(true);
  });

  it('the DeviceClass check refuses an unknown field, two selector kinds and a kubernetes.io extended resource', () => {
    const deviceClass = structuredClone(find(gpuObjects, 'DeviceClass', 'nvidia.gpu.kdp.dev'));
    const spec = deviceClass['spec'] as Mapping;
    spec['selector'] = [];
    spec['selectors'][0]['cel']['expresion'] = 'true';
    spec['extendedResourceName'] = 'kubernetes.io/gpu';
    expect(checkDeviceClass(deviceClass)).toEqual([
      'unknown field spec.selector',
      'spec.selectors[0].cel must hold exactly expression, a string',
      'extendedResourceName kubernetes.io/gpu may not be in the kubernetes.io domain',
    ]);
  });

  it('holds no field the API does not know (TypeScript excess-property check)', () => {
    const typed: TypedObject[] = [];
    const seen = new Set<string>();
    for (const { where, object } of all) {
      const model = schemaModel(object.apiVersion, object.kind);
      if (model === undefined || seen.has(objectId(object))) continue;
      seen.add(objectId(object));
      typed.push({
        label: `${where} ${objectId(object)}`,
        value: object,
        typeModule: model.typeModule,
        typeName: model.typeName,
      });
    }
    expect(checkFieldNames(typed)).toEqual([]);
  }, 60_000);
});

/**
 * The DaemonSet's command line for a run here: host paths moved under `root`, the sample node's trees at
 * /host/sys and /host/dev, each --config (the all-in-one's --<plugin>-config) the sample node's configuration.
 */
function serveArgs(variant: DraVariant, root: string): string[] {
  const container = podSpecOf(daemonSetOf(variant)).containers[0];
  const moved = (container?.args ?? []).map((arg) => {
    const [flag, value] = arg.split('=', 2);
    if (value === undefined || !value.startsWith('/')) return arg;
    if (flag === '--sysfs-root') return `${flag}=${sample.sysfsRoot}`;
    if (flag === '--dev-root') return `${flag}=${sample.devRoot}`;
    const plugin = /^--(?:(\w+)-)?config$/.exec(flag ?? '');
    if (plugin !== null) return `${flag}=${sample.configs[(plugin[1] ?? variant.plugin.name) as PluginName]}`;
    mkdirSync(join(root, value), { recursive: true });
    return `${flag}=${join(root, value)}`;
  });
  return [
    bundleOf.get(variant)?.path ?? '',
    ...moved,
    ...(variant.plugin.procfs ? [`--proc-root=${sample.procRoot}`] : []),
  ];
}

/** The environment the DaemonSet's downward API gives the driver, on node `node-a`. */
const driverEnv = {
  PATH: process.env['PATH'] ?? '',
  NODE_PATH: join(repoRoot, 'node_modules'),
  NODE_NAME: 'node-a',
  POD_UID: '1b4e28ba-2fa1-11d2-883f-0016d3cca427',
};

describe("the plugin binaries accept the DaemonSets' command lines", () => {
  let work: string;
  beforeAll(() => (work = mkdtempSync(join(tmpdir(), 'kdp-dra-'))));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  // Without an API server (no kubeconfig, not in a cluster) the run must get past flags, node name and
  // directories and stop there.
  it.each(draVariants.map((variant) => [variant.dir, variant] as const))(
    '%s: serve gets as far as the API server',
    async (_dir, variant) => {
      const result = await new Promise<{ code: unknown; stderr: string }>((resolve) =>
        execFile(
          process.execPath,
          serveArgs(variant, join(work, variant.plugin.name)),
          { env: driverEnv, timeout: 60_000 },
          (error, _out, stderr) => resolve({ code: error?.code ?? 0, stderr }),
        ),
      );
      expect(result.stderr).toContain('not in a cluster');
      expect(result.code).toBe(2);
    },
    60_000,
  );
});

/** Writes `<dir>/kubeconfig` reaching the API server at `url` with `token` (none: anonymous); returns its path. */
function writeKubeconfig(dir: string, url: string, token?: string): string {
  const file = join(dir, 'kubeconfig');
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': 'sim',
    contexts: [{ name: 'sim', context: { cluster: 'sim', user: 'driver' } }],
    clusters: [{ name: 'sim', cluster: { server: url } }],
    users: [{ name: 'driver', user: token === undefined ? {} : { token } }],
  };
  writeFileSync(file, JSON.stringify(config));
  return file;
}

/** The API group of each resource kubelet-sim's API server serves (its request attributes name no group). */
const groupOf: Record<string, string> = {
  nodes: '',
  pods: '',
  events: '',
  resourceslices: 'resource.k8s.io',
  resourceclaims: 'resource.k8s.io',
  resourceclaimtemplates: 'resource.k8s.io',
  deviceclasses: 'resource.k8s.io',
};
const asRbac = (a: ApiRequestAttributes) => ({ ...a, apiGroup: groupOf[a.resource] ?? '?' });
const requestId = (a: ApiRequestAttributes): string =>
  `${a.verb} ${a.resource}${a.subresource === undefined ? '' : `/${a.subresource}`}`;

describe('RBAC: each driver, run with its DaemonSet’s command line, needs nothing its ClusterRole does not grant', () => {
  let work: string;
  beforeAll(() => (work = mkdtempSync(join(tmpdir(), 'kdp-dra-rbac-'))));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('the RBAC check refuses what the rules leave out: another verb, another resource, a subresource', () => {
    const rules = find(builds[0]?.objects ?? [], 'ClusterRole', 'kdp-dra-driver')['rules'] as PolicyRule[];
    const slice = { apiGroup: 'resource.k8s.io', resource: 'resourceslices' };
    expect(rbacAllows(rules, { ...slice, verb: 'create' })).toBe(true);
    expect(rbacAllows(rules, { ...slice, verb: 'patch' })).toBe(false);
    expect(rbacAllows(rules, { ...slice, verb: 'deletecollection' })).toBe(false);
    expect(rbacAllows(rules, { ...slice, resource: 'deviceclasses', verb: 'get' })).toBe(false);
    expect(
      rbacAllows(rules, { ...slice, resource: 'resourceclaims', subresource: 'status', verb: 'update' }),
    ).toBe(false);
    expect(rbacAllows(rules, { apiGroup: '', resource: 'nodes', verb: 'list' })).toBe(false);
  });

  // kubelet-sim's API server authorizes the driver's token by the rendered ClusterRole, its DRA conformance suite
  // plays the kubelet (registration, publication, prepare, unprepare); the driver is the bundled binary.
  it.each(draVariants.map((variant) => [variant.dir, variant] as const))(
    '%s: publishes, prepares and unprepares with every request allowed',
    async (_dir, variant) => {
      const { objects } = builds.find((b) => b.variant === variant) as (typeof builds)[number];
      const rules = find(objects, 'ClusterRole', 'kdp-dra-driver')['rules'] as PolicyRule[];
      const [driverToken, adminToken] = ['driver-token', 'admin-token'];
      const allowed = new Set<string>();
      const denied: string[] = [];
      const server = await createApiServer({
        nodes: ['node-a'],
        authorize: (a) => {
          if (a.token === adminToken) return true;
          const ok = a.token === driverToken && rbacAllows(rules, asRbac(a));
          if (ok) allowed.add(requestId(a));
          else denied.push(`${requestId(a)} ${a.name ?? ''}`);
          return ok;
        },
      });
      const root = join(work, variant.plugin.name);
      mkdirSync(root, { recursive: true });
      const args = [
        ...serveArgs(variant, root),
        `--kubeconfig=${writeKubeconfig(root, server.url, driverToken)}`,
      ];
      let stderr = '';
      let driver: ReturnType<typeof spawn> | undefined;
      try {
        const report = await runDraConformance({
          driver: variant.drivers[0] as string,
          nodeName: 'node-a',
          apiServer: { url: server.url, token: adminToken },
          pluginsRegistryDir: join(root, 'var/lib/kubelet/plugins_registry'),
          cdiDir: join(root, 'var/run/cdi'),
          onReady: () => {
            driver = spawn(process.execPath, args, { env: driverEnv, stdio: ['ignore', 'ignore', 'pipe'] });
            driver.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
          },
        });
        const status = (id: string): string | undefined => report.checks.find((c) => c.id === id)?.status;
        const reached = ['dra-registers', 'publishes-slices', 'prepare', 'unprepare'].map((id) => [
          id,
          status(id),
        ]);
        if (denied.length > 0 || reached.some(([, s]) => s !== 'pass')) process.stderr.write(stderr);
        expect(denied).toEqual([]);
        expect(reached).toEqual(
          ['dra-registers', 'publishes-slices', 'prepare', 'unprepare'].map((id) => [id, 'pass']),
        );
        // What the drivers use of the grant: the slices' informer and writes, the claims' read, the node's read.
        expect([...allowed].sort()).toEqual(
          expect.arrayContaining([
            'create resourceslices',
            'get nodes',
            'get resourceclaims',
            'list resourceslices',
            'watch resourceslices',
          ]),
        );
      } finally {
        if (driver !== undefined && driver.exitCode === null) {
          driver.kill('SIGTERM');
          await once(driver, 'exit');
        }
        await server.close();
      }
    },
    120_000,
  );
});

/** Resolves once `condition` holds, checking every 50 ms; rejects with `what` after `timeoutMs`. */
async function until(what: string, condition: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('rolling update with maxSurge 1: the new pod runs beside the old one, which leaves without its slices', () => {
  let work: string;
  beforeAll(() => (work = mkdtempSync(join(tmpdir(), 'kdp-dra-surge-'))));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  // Two instances of the DaemonSet's command line on one node (each pod its own POD_UID; their metrics ports
  // differ here as pods' network namespaces make them differ there), kubelet-sim as the node's kubelet.
  it.each(draVariants.filter((v) => !v.hostNetwork).map((variant) => [variant.dir, variant] as const))(
    '%s: both register, the old one exits 0 on SIGTERM, the new one keeps the node’s devices published',
    async (_dir, variant) => {
      const driver = variant.drivers[0] as string;
      const root = join(work, variant.plugin.name);
      mkdirSync(join(root, 'kubelet'), { recursive: true });
      const server = await createApiServer({ nodes: ['node-a'] });
      const args = serveArgs(variant, root).map((arg) =>
        arg.startsWith('--metrics-address=') ? '--metrics-address=127.0.0.1:0' : arg,
      );
      const sim = await createKubeletSim({
        dir: join(root, 'kubelet'),
        dra: {
          pluginsRegistryDir: join(root, 'var/lib/kubelet/plugins_registry'),
          apiServer: { url: server.url },
          nodeName: 'node-a',
        },
      });
      const pods: ReturnType<typeof spawn>[] = [];
      let stderr = '';
      const start = (uid: string): ReturnType<typeof spawn> => {
        const pod = spawn(process.execPath, [...args, `--kubeconfig=${writeKubeconfig(root, server.url)}`], {
          env: { ...driverEnv, POD_UID: uid },
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        pod.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        pods.push(pod);
        return pod;
      };
      const connected = (): string[] =>
        (sim.draState().drivers.find((d) => d.driver === driver)?.endpoints ?? [])
          .filter((endpoint) => endpoint.connected)
          .map((endpoint) => endpoint.endpoint);
      const devices = (): string[] =>
        server.store
          .list('resourceslices')
          .items.flatMap((slice) => {
            const spec = (slice as Mapping)['spec'];
            return spec['driver'] === driver
              ? (spec['devices'] as Mapping[]).map((d) => d['name'] as string)
              : [];
          })
          .sort();
      const [oldUid, newUid] = [
        '0a0a0a0a-1111-4111-8111-000000000001',
        '0b0b0b0b-2222-4222-8222-000000000002',
      ];
      try {
        const old = start(oldUid);
        await until('the old pod’s registration', () => connected().length === 1);
        // Every pool it serves written at least once: a pool's slices go out in their own writes, so the first
        // slice seen is not yet the node's whole publication.
        await until('the old pod’s slices, every pool', () => {
          // Whole lines only: the last may still be arriving.
          const lines = stderr
            .slice(0, stderr.lastIndexOf('\n') + 1)
            .split('\n')
            .flatMap((line) => (line.startsWith('{') ? [JSON.parse(line) as Mapping] : []));
          const pools = (msg: string): Set<unknown> =>
            new Set(lines.filter((l) => l['msg'] === msg).map((l) => l['pool']));
          const served = pools('resource served through DRA');
          const written = pools('ResourceSlices written');
          return served.size > 0 && [...served].every((pool) => written.has(pool)) && devices().length > 0;
        });
        const published = devices();
        const [oldEndpoint] = connected();
        start(newUid);
        await until('both pods registered', () => connected().length === 2);
        // Each pod its own endpoint (POD_UID-named sockets, hashed when the path is long).
        const newEndpoint = connected().find((endpoint) => endpoint !== oldEndpoint);
        expect(newEndpoint).toBeDefined();
        old.kill('SIGTERM');
        const [code] = (await once(old, 'exit')) as [number | null];
        expect(code).toBe(0);
        await until('the new pod alone', () => connected().length === 1);
        expect(connected()).toEqual([newEndpoint]);
        expect(devices()).toEqual(published);
        expect(pods[1]?.exitCode).toBeNull();
      } catch (error) {
        process.stderr.write(stderr);
        throw error;
      } finally {
        for (const pod of pods) {
          if (pod.exitCode === null && pod.signalCode === null) {
            pod.kill('SIGTERM');
            await once(pod, 'exit');
          }
        }
        await sim.close();
        await server.close();
      }
    },
    90_000,
  );
});
