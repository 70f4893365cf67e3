import { allInOne, deployedPlugins, singlePlugins } from './kdp-plugins';
import type { KubeObject } from './kube-object';
import { cpuMillis, memoryBytes, pluginDaemonSets, profileRules } from './profile-rules';

/** Every kdp plugin DaemonSet of every build (the same plugin appears in several builds, each is checked). */
const daemonSets = pluginDaemonSets();

type Mapping = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const pod = (ds: KubeObject): Mapping => (ds['spec'] as Mapping)['template']['spec'];
const container = (ds: KubeObject): Mapping => pod(ds)['containers'][0];

describe('the least-privilege profile of every plugin DaemonSet', () => {
  it('covers every plugin in its own build, in deploy/all and in the overlays, and the all-in-one alone', () => {
    for (const plugin of singlePlugins) {
      expect(daemonSets.filter((d) => d.plugin === plugin.name).map((d) => d.dir)).toEqual(
        expect.arrayContaining([plugin.name, `plugins/${plugin.name}`, 'all', 'overlays/all-metrics']),
      );
    }
    expect(daemonSets.filter((d) => d.plugin === allInOne.name).map((d) => d.dir)).toEqual([
      allInOne.name,
      `plugins/${allInOne.name}`,
    ]);
    expect(daemonSets.some((d) => d.dir === 'overlays/gpu-cdi')).toBe(true);
  });

  it.each(profileRules.map((rule) => [rule.name, rule]))('%s', (_name, rule) => {
    const violations = daemonSets.flatMap(({ dir, plugin, object }) =>
      rule.check(object).map((problem) => `deploy/${dir} ${plugin}: ${problem}`),
    );
    expect(violations).toEqual([]);
  });

  it('each plugin has its own metrics port', () => {
    const ports = deployedPlugins.map((plugin) => plugin.metricsPort);
    expect(new Set(ports).size).toBe(ports.length);
  });

  it('reads quantities as Kubernetes does', () => {
    expect([memoryBytes('64Mi'), memoryBytes('1Gi'), memoryBytes('512Ki'), memoryBytes('64M')]).toEqual([
      64 * 2 ** 20,
      2 ** 30,
      2 ** 19,
      Number.NaN,
    ]);
    expect([cpuMillis('10m'), cpuMillis('0.5'), cpuMillis(undefined)]).toEqual([10, 500, Number.NaN]);
  });
});

/** A mutation per rule that must make exactly that rule fail, on a copy of the GPU DaemonSet. */
const mutations: Record<string, (ds: KubeObject) => void> = {
  'not privileged': (ds) => (container(ds)['securityContext']['privileged'] = true),
  'runs as uid 0': (ds) => (container(ds)['securityContext']['runAsUser'] = 1000),
  'no privilege escalation': (ds) => delete container(ds)['securityContext']['allowPrivilegeEscalation'],
  'every capability dropped': (ds) =>
    (container(ds)['securityContext']['capabilities']['add'] = ['SYS_ADMIN']),
  'read-only root filesystem': (ds) => (container(ds)['securityContext']['readOnlyRootFilesystem'] = false),
  'seccomp RuntimeDefault': (ds) =>
    (container(ds)['securityContext']['seccompProfile'] = { type: 'Unconfined' }),
  priorityClassName: (ds) => delete pod(ds)['priorityClassName'],
  'no service-account token': (ds) => (pod(ds)['automountServiceAccountToken'] = true),
  'memory request and limit': (ds) => (container(ds)['resources']['requests']['cpu'] = '100m'),
  'metrics always on': (ds) => {
    // Another plugin's port, consistently: only the distinct-port rule notices.
    container(ds)['args'] = (container(ds)['args'] as string[]).map((a) => a.replace(':9401', ':9402'));
    container(ds)['ports'][0]['containerPort'] = 9402;
    container(ds)['ports'][0]['hostPort'] = 9402;
  },
  'metrics port published on the node': (ds) => delete container(ds)['ports'][0]['hostPort'],
  'startup and liveness probes': (ds) => (container(ds)['readinessProbe']['httpGet']['path'] = '/healthz'),
  RollingUpdate: (ds) => ((ds['spec'] as Mapping)['updateStrategy']['rollingUpdate']['maxSurge'] = 1),
  hostPaths: (ds) =>
    (container(ds)['volumeMounts'] as Mapping[])
      .filter((m) => m['name'] === 'dev')
      .forEach((m) => delete m['readOnly']),
  tolerates: (ds) => (pod(ds)['tolerations'] = [{ operator: 'Exists' }]),
  'placed by NFD labels': (ds) =>
    pod(ds)['affinity']['nodeAffinity']['requiredDuringSchedulingIgnoredDuringExecution'][
      'nodeSelectorTerms'
    ].push({
      matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'Exists' }],
    }),
  'each ConfigMap is mounted as a directory': (ds) =>
    (container(ds)['volumeMounts'] as Mapping[])
      .filter((m) => m['name'] === 'config')
      .forEach((m) => (m['subPath'] = 'config.yaml')),
  image: (ds) => (container(ds)['image'] = 'docker.io/someone/gpu-device-plugin:latest'),
};

describe('each profile rule fails on a DaemonSet that breaks it (the rules are not no-ops)', () => {
  const gpu = daemonSets.find((d) => d.dir === 'gpu')?.object as KubeObject;

  it('every rule has a mutation', () => {
    for (const rule of profileRules)
      expect([rule.name, Object.keys(mutations).some((prefix) => rule.name.startsWith(prefix))]).toEqual([
        rule.name,
        true,
      ]);
  });

  it.each(Object.entries(mutations))(
    '%s: the mutated copy fails that rule and only that one',
    (prefix, mutate) => {
      const copy = structuredClone(gpu);
      mutate(copy);
      const failing = profileRules.filter((rule) => rule.check(copy).length > 0).map((rule) => rule.name);
      expect(failing).toHaveLength(1);
      expect(failing[0]?.startsWith(prefix)).toBe(true);
    },
  );

  it('a second hostPath, read-write /dev or one off the list, is refused', () => {
    const copy = structuredClone(gpu);
    pod(copy)['volumes'].push({ name: 'root', hostPath: { path: '/' } });
    const rule = profileRules.find((r) => r.name.startsWith('hostPaths'));
    expect(rule?.check(copy)).toEqual(['hostPath / is not on the allowed list']);
  });
});
