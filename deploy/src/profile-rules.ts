import { join } from 'node:path';
import { deployDir } from './deploy-dir';
import { draPlacementTerms, offDraExpressions } from './device-placement';
import {
  allInOne,
  componentHosts,
  deployedPlugins,
  draVariants,
  kustomizations,
  singlePlugins,
  type DeployedPlugin,
  type DraVariant,
} from './kdp-plugins';
import type { KubeObject } from './kube-object';
import { kustomizeBuild } from './kustomize-build';

/** A rule of kdp's DaemonSet profile: returns the violations it finds (empty = satisfied). */
export interface ProfileRule {
  readonly name: string;
  check(daemonSet: KubeObject): string[];
}

type Mapping = Record<string, unknown>;

interface Container extends Mapping {
  name: string;
  args?: string[];
  ports?: { name?: string; containerPort: number; hostPort?: number }[];
  securityContext?: Mapping & {
    capabilities?: { add?: string[]; drop?: string[] };
    seccompProfile?: { type?: string };
  };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean; subPath?: string }[];
  startupProbe?: Probe;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
}

interface Probe {
  httpGet?: { path?: string; port?: number | string };
}

interface Volume {
  name: string;
  hostPath?: { path: string };
  configMap?: { name: string };
}

interface PodSpec extends Mapping {
  containers: Container[];
  volumes?: Volume[];
  tolerations?: { key?: string; operator?: string }[];
  affinity?: {
    nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: Term[] } };
  };
}

interface Term {
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

function podSpec(daemonSet: KubeObject): PodSpec {
  return ((daemonSet['spec'] as Mapping)['template'] as Mapping)['spec'] as PodSpec;
}

/** The required node-affinity terms of a DaemonSet's pods (any one must match). */
function nodeSelectorTerms(daemonSet: KubeObject): Term[] {
  return (
    podSpec(daemonSet).affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution
      ?.nodeSelectorTerms ?? []
  );
}

function containers(daemonSet: KubeObject): Container[] {
  return podSpec(daemonSet).containers;
}

/** The short plugin name of a kdp plugin DaemonSet (`gpu-device-plugin` → `gpu`, `kdp-device-plugins` → `device-plugins`). */
export function pluginOf(daemonSet: KubeObject): string {
  return deployedOf(daemonSet)?.name ?? daemonSet.metadata.name;
}

/** The plugin a DaemonSet runs, by its name (a device-plugin DaemonSet, or a DRA variant's). */
function deployedOf(daemonSet: KubeObject): DeployedPlugin | undefined {
  const name = daemonSet.metadata.name;
  return (
    deployedPlugins.find((plugin) => plugin.binary === name) ??
    draVariants.find((variant) => variant.daemonSet === name)?.plugin
  );
}

/** Every kdp plugin DaemonSet of every build and component, with its folder and plugin (one plugin appears in several). */
export function pluginDaemonSets(): { dir: string; plugin: string; object: KubeObject }[] {
  const builds: [string, string | undefined][] = [
    ...kustomizations.map((dir): [string, undefined] => [dir, undefined]),
    ...Object.entries(componentHosts),
  ];
  return builds.flatMap(([dir, host]) =>
    kustomizeBuild(join(deployDir, dir), host === undefined ? undefined : join(deployDir, host))
      .filter(
        (object) =>
          object.kind === 'DaemonSet' &&
          object.metadata.labels?.['app.kubernetes.io/component'] === 'device-plugin',
      )
      .map((object) => ({ dir, plugin: pluginOf(object), object })),
  );
}

/** The DRA variant a DaemonSet is, by its name. */
function draVariantOf(daemonSet: KubeObject): DraVariant | undefined {
  return draVariants.find((variant) => variant.daemonSet === daemonSet.metadata.name);
}

/** The `kdp.dev/<plugin>.mode NotIn [dra]` expressions that keep a device plugin off nodes switched to DRA. */
function offDraOf(daemonSet: KubeObject): string[] {
  const plugin = deployedOf(daemonSet);
  const served = plugin === allInOne ? singlePlugins : plugin === undefined ? [] : [plugin];
  return offDraExpressions(served.map((p) => p.name)).map((expression) => JSON.stringify(expression));
}

const isModeLabel = (key: string): boolean => /^kdp\.dev\/[a-z-]+\.mode$/.test(key);

/** Memory quantities in bytes (Ki, Mi, Gi, or plain bytes). */
export function memoryBytes(quantity: string | undefined): number {
  const match = /^(\d+)(Ki|Mi|Gi)?$/.exec(quantity ?? '');
  if (match === null) return Number.NaN;
  const unit = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30 }[match[2] ?? ''] ?? 1;
  return Number(match[1]) * unit;
}

/** CPU quantities in millicores (`10m`, `0.5`, `1`). */
export function cpuMillis(quantity: string | undefined): number {
  if (quantity === undefined) return Number.NaN;
  return quantity.endsWith('m') ? Number(quantity.slice(0, -1)) : Number(quantity) * 1000;
}

function argValue(container: Container, flag: string): string | undefined {
  const args = container.args ?? [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg.startsWith(`${flag}=`)) return arg.slice(flag.length + 1);
    if (arg === flag) return args[i + 1];
  }
  return undefined;
}

function metricsPort(container: Container): number | undefined {
  const address = argValue(container, '--metrics-address');
  const port = address === undefined ? Number.NaN : Number(address.slice(address.lastIndexOf(':') + 1));
  return Number.isInteger(port) ? port : undefined;
}

function probeHits(container: Container, probe: Probe | undefined, path: string): boolean {
  const port = probe?.httpGet?.port;
  const portNumber =
    typeof port === 'string'
      ? container.ports?.find((candidate) => candidate.name === port)?.containerPort
      : port;
  return probe?.httpGet?.path === path && portNumber !== undefined && portNumber === metricsPort(container);
}

/** Paths a plugin may mount from the host, and whether read-write is allowed there. */
const hostPathPolicy: { path: string; writable: boolean }[] = [
  { path: '/var/lib/kubelet/device-plugins', writable: true },
  { path: '/var/run/cdi', writable: true },
  { path: '/var/run/k8s.cni.cncf.io/devinfo/dp', writable: true },
  // Node Feature Discovery's local feature files (`--nfd-features-dir`): each plugin writes its own kdp-<plugin>.
  { path: '/etc/kubernetes/node-feature-discovery/features.d', writable: true },
  { path: '/sys', writable: false },
  { path: '/sys/bus', writable: false },
  { path: '/sys/class', writable: false },
  { path: '/sys/devices', writable: false },
  { path: '/dev', writable: false },
];

/**
 * What is wrong with a DaemonSet's hostPath volumes under `policy`: a path off the list, a read-write mount of a
 * read-only path, a `required` path not mounted (`the device-plugins directory is not mounted`).
 */
function hostPathProblems(
  ds: KubeObject,
  policy: readonly { path: string; writable: boolean }[],
  required: readonly string[],
): string[] {
  const volumes = podSpec(ds).volumes ?? [];
  const problems: string[] = [];
  for (const volume of volumes) {
    if (volume.hostPath === undefined) continue;
    const entry = policy.find((candidate) => candidate.path === volume.hostPath?.path);
    if (entry === undefined) {
      problems.push(`hostPath ${volume.hostPath.path} is not on the allowed list`);
      continue;
    }
    for (const container of containers(ds)) {
      for (const mount of container.volumeMounts ?? []) {
        if (mount.name === volume.name && mount.readOnly !== true && !entry.writable) {
          problems.push(`${container.name}: hostPath ${entry.path} must be mounted readOnly`);
        }
      }
    }
  }
  for (const path of required) {
    if (!volumes.some((volume) => volume.hostPath?.path === path))
      problems.push(
        path === '/var/lib/kubelet/device-plugins'
          ? 'the device-plugins directory is not mounted'
          : `${path} is not mounted`,
      );
  }
  return problems;
}

const each =
  (check: (container: Container, daemonSet: KubeObject) => string[]) =>
  (daemonSet: KubeObject): string[] =>
    containers(daemonSet).flatMap((container) =>
      check(container, daemonSet).map((problem) => `${container.name}: ${problem}`),
    );

/** kdp's DaemonSet profile (deploy/README.md, "Security profile"), one rule per setting. */
export const profileRules: readonly ProfileRule[] = [
  {
    name: 'not privileged',
    check: each((c) =>
      c.securityContext?.['privileged'] === false ? [] : ['securityContext.privileged must be false'],
    ),
  },
  {
    name: 'runs as uid 0 (the device-plugins directory is root 0750)',
    check: each((c) =>
      c.securityContext?.['runAsUser'] === 0 ? [] : ['securityContext.runAsUser must be 0'],
    ),
  },
  {
    name: 'no privilege escalation',
    check: each((c) =>
      c.securityContext?.['allowPrivilegeEscalation'] === false
        ? []
        : ['allowPrivilegeEscalation must be false'],
    ),
  },
  {
    name: 'every capability dropped, none added',
    check: each((c) => {
      const caps = c.securityContext?.capabilities;
      const problems: string[] = [];
      if (!(caps?.drop ?? []).includes('ALL')) problems.push('capabilities.drop must include ALL');
      if ((caps?.add ?? []).length > 0)
        problems.push(`capabilities.add must be empty, is ${JSON.stringify(caps?.add)}`);
      return problems;
    }),
  },
  {
    name: 'read-only root filesystem',
    check: each((c) =>
      c.securityContext?.['readOnlyRootFilesystem'] === true ? [] : ['readOnlyRootFilesystem must be true'],
    ),
  },
  {
    name: 'seccomp RuntimeDefault',
    check: (ds) => {
      const pod = (podSpec(ds)['securityContext'] as { seccompProfile?: { type?: string } } | undefined)
        ?.seccompProfile;
      const problems = pod?.type === 'RuntimeDefault' ? [] : ['pod seccompProfile must be RuntimeDefault'];
      return [
        ...problems,
        ...each((c) => {
          const type = c.securityContext?.seccompProfile?.type;
          return type === undefined || type === 'RuntimeDefault'
            ? []
            : [`seccompProfile ${type} is not RuntimeDefault`];
        })(ds),
      ];
    },
  },
  {
    name: 'priorityClassName system-node-critical',
    check: (ds) =>
      podSpec(ds)['priorityClassName'] === 'system-node-critical'
        ? []
        : ['priorityClassName must be system-node-critical'],
  },
  {
    name: 'no service-account token, unless --node-config-label reads the node labels (opt-in, get nodes only)',
    check: (ds) => {
      const wanted = containers(ds).some((c) => argValue(c, '--node-config-label') !== undefined);
      return podSpec(ds)['automountServiceAccountToken'] === wanted
        ? []
        : [`automountServiceAccountToken must be ${String(wanted)}`];
    },
  },
  {
    name: 'memory request and limit as measured for the plugin (64Mi/128Mi, the all-in-one 128Mi/256Mi); CPU request at most 20m',
    check: each((c, ds) => {
      const problems: string[] = [];
      const memory = deployedOf(ds)?.memory ?? { request: '64Mi', limit: '128Mi' };
      if (memoryBytes(c.resources?.requests?.['memory']) !== memoryBytes(memory.request))
        problems.push(`requests.memory must be ${memory.request}`);
      if (memoryBytes(c.resources?.limits?.['memory']) !== memoryBytes(memory.limit))
        problems.push(`limits.memory must be ${memory.limit}`);
      const cpu = cpuMillis(c.resources?.requests?.['cpu']);
      if (!(cpu > 0 && cpu <= 20)) problems.push('requests.cpu must be set and at most 20m');
      return problems;
    }),
  },
  {
    name: 'metrics always on, on the plugin port, as a named container port',
    check: each((c, ds) => {
      const port = metricsPort(c);
      if (port === undefined) return ['--metrics-address HOST:PORT is missing (the probes need it)'];
      const problems: string[] = [];
      if (!c.ports?.some((p) => p.name === 'metrics' && p.containerPort === port)) {
        problems.push(`no container port "metrics" ${port}`);
      }
      const expected = deployedOf(ds)?.metricsPort;
      if (port !== expected)
        problems.push(`metrics port ${port} is not the plugin's documented port ${String(expected)}`);
      return problems;
    }),
  },
  {
    name: 'metrics port published on the node (hostPort = containerPort): device-monitor scrapes NODE_IP:<port>',
    check: each((c) => {
      const entry = c.ports?.find((p) => p.name === 'metrics');
      if (entry === undefined) return []; // the rule above reports a missing metrics port
      return entry.hostPort === entry.containerPort
        ? []
        : [`container port "metrics" ${entry.containerPort} must have hostPort ${entry.containerPort}`];
    }),
  },
  {
    name: 'startup and liveness probes on /healthz, readiness on /readyz, at the metrics port',
    check: each((c) => {
      const problems: string[] = [];
      if (!probeHits(c, c.startupProbe, '/healthz'))
        problems.push('startupProbe must GET /healthz on the metrics port');
      if (!probeHits(c, c.livenessProbe, '/healthz'))
        problems.push('livenessProbe must GET /healthz on the metrics port');
      if (!probeHits(c, c.readinessProbe, '/readyz'))
        problems.push('readinessProbe must GET /readyz on the metrics port');
      return problems;
    }),
  },
  {
    name: 'RollingUpdate, maxUnavailable 1, maxSurge 0',
    check: (ds) => {
      const strategy = (ds['spec'] as Mapping)['updateStrategy'] as
        { type?: string; rollingUpdate?: { maxUnavailable?: unknown; maxSurge?: unknown } } | undefined;
      const ok =
        strategy?.type === 'RollingUpdate' &&
        strategy.rollingUpdate?.maxUnavailable === 1 &&
        strategy.rollingUpdate.maxSurge === 0;
      return ok ? [] : ['updateStrategy must be RollingUpdate with maxUnavailable 1 and maxSurge 0'];
    },
  },
  {
    name: 'hostPaths limited to the allowed list, read-only except the sockets and output directories',
    check: (ds) => hostPathProblems(ds, hostPathPolicy, ['/var/lib/kubelet/device-plugins']),
  },
  {
    name: 'tolerates CriticalAddonsOnly and its own taint',
    check: (ds) => {
      const keys = (podSpec(ds).tolerations ?? []).map((toleration) => toleration.key);
      const problems: string[] = [];
      if (!keys.includes('CriticalAddonsOnly')) problems.push('no toleration for CriticalAddonsOnly');
      if (!keys.includes(`kdp.dev/${pluginOf(ds)}`))
        problems.push(`no toleration for kdp.dev/${pluginOf(ds)}`);
      if ((podSpec(ds).tolerations ?? []).some((t) => t.key === undefined && t.operator === 'Exists')) {
        problems.push('tolerates every taint');
      }
      return problems;
    },
  },
  {
    name: 'placed by NFD labels or the opt-in kdp.dev/<plugin>.present=true label, every term off the nodes switched to DRA',
    check: (ds) => {
      const terms = nodeSelectorTerms(ds);
      const optIn = `kdp.dev/${pluginOf(ds)}.present`;
      const offDra = offDraOf(ds);
      const problems: string[] = [];
      const hasOptIn = terms.some((term) => {
        const expressions = (term.matchExpressions ?? []).filter(
          (expression) => !isModeLabel(expression.key),
        );
        return (
          expressions.length === 1 &&
          expressions[0]?.key === optIn &&
          expressions[0].operator === 'In' &&
          JSON.stringify(expressions[0].values) === '["true"]'
        );
      });
      if (!hasOptIn) problems.push(`no node selector term that is exactly ${optIn}=true`);
      terms.forEach((term, i) => {
        const modes = (term.matchExpressions ?? [])
          .filter((expression) => isModeLabel(expression.key))
          .map(({ key, operator, values }) => JSON.stringify({ key, operator, values }));
        if (JSON.stringify([...modes].sort()) !== JSON.stringify([...offDra].sort()))
          problems.push(
            `term ${i} must hold exactly ${offDra.join(', ')} (one mode per node), holds ${modes.join(', ')}`,
          );
        for (const expression of term.matchExpressions ?? []) {
          if (
            expression.key !== optIn &&
            !isModeLabel(expression.key) &&
            !expression.key.startsWith('feature.node.kubernetes.io/')
          ) {
            problems.push(`node selector key ${expression.key} is neither NFD's nor the opt-in label`);
          }
        }
      });
      return problems;
    },
  },
  {
    name: 'each ConfigMap is mounted as a directory (no subPath) and passed to its --config flag',
    check: each((c, ds) => {
      const configs = deployedOf(ds)?.configs ?? [];
      const problems: string[] = configs.length === 0 ? ['not a known kdp plugin DaemonSet'] : [];
      for (const config of configs) {
        const volume = (podSpec(ds).volumes ?? []).find(
          (candidate) => candidate.configMap?.name === config.configMap,
        );
        const mount = c.volumeMounts?.find((candidate) => candidate.name === volume?.name);
        if (volume === undefined || mount === undefined) {
          problems.push(`ConfigMap ${config.configMap} is not mounted`);
          continue;
        }
        if (mount.subPath !== undefined)
          problems.push(`ConfigMap ${config.configMap} is mounted with subPath (no reload on change)`);
        if (!(argValue(c, config.flag) ?? '').startsWith(`${mount.mountPath}/`)) {
          problems.push(`${config.flag} does not point into ${mount.mountPath}`);
        }
      }
      return problems;
    }),
  },
  {
    name: 'image ghcr.io/kdp-dev/<binary> with a tag',
    check: each((c, ds) => {
      const image = String(c['image']);
      const binary = deployedOf(ds)?.binary ?? ds.metadata.name;
      return new RegExp(`^ghcr\\.io/kdp-dev/${binary}:[\\w.-]+$`).test(image)
        ? []
        : [`image ${image} is not ghcr.io/kdp-dev/${binary}:<version>`];
    }),
  },
];

/** The kubelet directories a DRA driver writes: the registration socket's and its DRA socket's and checkpoint's. */
const DRA_KUBELET_DIRS = ['/var/lib/kubelet/plugins_registry', '/var/lib/kubelet/plugins'];

/**
 * The DRA variants' host paths: the device plugins' list without the device-plugins directory (the DRA mode
 * refuses `--device-plugin-dir`), with the kubelet's plugins_registry and plugins directories read-write.
 */
const draHostPathPolicy = [
  ...hostPathPolicy.filter((entry) => entry.path !== '/var/lib/kubelet/device-plugins'),
  ...DRA_KUBELET_DIRS.map((path) => ({ path, writable: true })),
];

/** The rules the DRA variants replace, by the profile rule's name prefix, each with its reason in its name. */
const draReplacements: Record<string, ProfileRule> = {
  'no service-account token': {
    name: 'service-account token mounted (DRA: the driver publishes ResourceSlices and reads ResourceClaims)',
    check: (ds) =>
      podSpec(ds)['automountServiceAccountToken'] === true &&
      podSpec(ds)['serviceAccountName'] === ds.metadata.name
        ? []
        : ['automountServiceAccountToken must be true, with the service account named after the DaemonSet'],
  },
  hostPaths: {
    name: 'hostPaths limited to the DRA list: plugins_registry, plugins and /var/run/cdi read-write, no device-plugins',
    check: (ds) => hostPathProblems(ds, draHostPathPolicy, [...DRA_KUBELET_DIRS, '/var/run/cdi']),
  },
  'placed by NFD labels': {
    name: 'placed only on nodes labelled kdp.dev/<plugin>.mode=dra (one mode per node, one driver per device)',
    check: (ds) => {
      const expected = draPlacementTerms(pluginOf(ds));
      return JSON.stringify(nodeSelectorTerms(ds)) === JSON.stringify(expected)
        ? []
        : [`the node affinity must be exactly ${JSON.stringify(expected)}`];
    },
  },
  'metrics port published': {
    name: 'metrics port not published on the node (a hostPort keeps the rollout’s second pod off it), unless on the host network',
    check: (ds) => {
      const hostNetwork = draVariantOf(ds)?.hostNetwork ?? false;
      const problems =
        (podSpec(ds)['hostNetwork'] === true) === hostNetwork
          ? []
          : [`hostNetwork must be ${String(hostNetwork)}`];
      return [
        ...problems,
        ...each((c) => {
          const entry = c.ports?.find((p) => p.name === 'metrics');
          if (entry === undefined || hostNetwork) return [];
          return entry.hostPort === undefined ? [] : [`container port "metrics" must have no hostPort`];
        })(ds),
      ];
    },
  },
  'RollingUpdate, maxUnavailable 1': {
    name: 'RollingUpdate with maxSurge 1 and maxUnavailable 0 (old and new driver overlap); on the host network maxSurge 0, maxUnavailable 1',
    check: (ds) => {
      const strategy = (ds['spec'] as Mapping)['updateStrategy'] as
        { type?: string; rollingUpdate?: { maxUnavailable?: unknown; maxSurge?: unknown } } | undefined;
      const [surge, unavailable] = draVariantOf(ds)?.hostNetwork === true ? [0, 1] : [1, 0];
      return strategy?.type === 'RollingUpdate' &&
        strategy.rollingUpdate?.maxSurge === surge &&
        strategy.rollingUpdate.maxUnavailable === unavailable
        ? []
        : [`updateStrategy must be RollingUpdate with maxSurge ${surge} and maxUnavailable ${unavailable}`];
    },
  },
};

/**
 * The profile of the DRA variants (deploy/dra): kdp's DaemonSet profile with five rules replaced (deploy/README.md,
 * "DRA"): a token is mounted, the kubelet's plugins_registry and plugins directories replace device-plugins, the
 * label kdp.dev/<plugin>.mode=dra replaces the NFD placement, and the metrics port stays off the node so that the
 * rollout surges (maxSurge 1) unless the pod is on the host network. Every other rule holds unchanged.
 */
export const draProfileRules: readonly ProfileRule[] = profileRules.map(
  (rule) => Object.entries(draReplacements).find(([prefix]) => rule.name.startsWith(prefix))?.[1] ?? rule,
);
