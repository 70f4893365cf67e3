import { resolve } from 'node:path';
import { parseArgs as nodeParseArgs, type ParseArgsConfig } from 'node:util';

/** A command line the user got wrong; the CLI prints the message and exits with code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** `kubelet-sim serve` flags. */
export interface ServeArgs {
  readonly command: 'serve';
  readonly dir: string;
  readonly json: boolean;
  readonly podResourcesSocket?: string;
  readonly pluginsRegistryDir?: string;
  readonly acceptV1alpha: boolean;
}

/** `kubelet-sim serve --dra` flags: the DRA playground. */
export interface DraServeArgs {
  readonly command: 'serve-dra';
  readonly pluginsRegistryDir: string;
  /** Absent: a fresh temporary directory, removed at exit. */
  readonly dir?: string;
  readonly json: boolean;
  readonly nodeName?: string;
  readonly nodes: number;
  readonly apiPort?: number;
  readonly kubeconfigOut?: string;
  readonly cdiDir: string;
  readonly devRoot: string;
  readonly podResourcesSocket?: string;
  readonly resourceApiVersion?: ResourceApiVersion;
}

/** The resource.k8s.io versions `serve --dra --resource-api-version` accepts. */
export const resourceApiVersions = ['v1', 'v1beta2', 'v1beta1'] as const;
/** A resource.k8s.io version. */
export type ResourceApiVersion = (typeof resourceApiVersions)[number];

/** `kubelet-sim check` flags. */
export interface CheckArgs {
  readonly command: 'check';
  readonly dir: string;
  readonly json: boolean;
  readonly resource?: string;
  readonly pid?: number;
  readonly restarts: number;
  readonly timeoutSeconds: number;
  /** `--strict`: a recommended check that warns fails instead. */
  readonly strict: boolean;
}

/** `kubelet-sim check --dra` flags. */
export interface DraCheckArgs {
  readonly command: 'check-dra';
  readonly driver: string;
  readonly pluginsRegistryDir: string;
  /** Absent: the built-in API server. */
  readonly apiServer?: string;
  readonly apiPort?: number;
  readonly tokenFile?: string;
  readonly kubeconfigOut?: string;
  readonly nodeName?: string;
  readonly namespace?: string;
  readonly cdiDir?: string;
  readonly dir?: string;
  readonly json: boolean;
  readonly timeoutSeconds: number;
  readonly publishTimeoutSeconds: number;
  readonly strict: boolean;
}

/** A parsed command line. */
export type CliArgs =
  | ServeArgs
  | DraServeArgs
  | CheckArgs
  | DraCheckArgs
  | { readonly command: 'help' }
  | { readonly command: 'version' };

/** The usage text. */
export const usage = `Usage:
  kubelet-sim serve --dir DIR [--json] [--pod-resources-socket PATH] [--plugins-registry DIR] [--accept-v1alpha]
  kubelet-sim serve --dra --plugins-registry DIR [--kubeconfig-out FILE] [--api-port PORT] [--node-name NAME]
                    [--nodes N] [--cdi-dir DIR] [--dev-root DIR] [--pod-resources-socket PATH]
                    [--resource-api-version v1|v1beta2|v1beta1] [--dir DIR] [--json]
  kubelet-sim check --dir DIR [--resource NAME] [--pid PID] [--restarts N] [--timeout SECONDS] [--strict] [--json]
  kubelet-sim check --dra --driver NAME --plugins-registry-dir DIR [--api-server URL [--token-file FILE] | --api-port PORT]
                    [--kubeconfig-out FILE] [--node-name NAME] [--namespace NS] [--cdi-dir DIR] [--dir DIR]
                    [--timeout SECONDS] [--publish-timeout SECONDS] [--strict] [--json]
  kubelet-sim --help | --version

serve   runs a simulated kubelet in DIR and prints registrations, device lists and health changes live
        --dra  runs the DRA playground instead: an API server over HTTPS with a bearer token (kubeconfig
               for kubectl written to --kubeconfig-out), a scheduler that allocates claims with CEL, and
               --nodes kubelets (default 1). The first node is --node-name (kubelet-sim-node) and watches
               --plugins-registry DIR; node i is NAME-i and watches DIR/NAME-i. Pods bound to a node get
               their claims prepared and each container its request's CDI devices from --cdi-dir
               (/var/run/cdi), device nodes checked under --dev-root (/dev). --pod-resources-socket serves
               the first node's pods (node i: at DIRNAME/NAME-i/BASENAME). --dir: the kubelets' state
               (default a temporary directory). --resource-api-version: serve only that resource.k8s.io
               version (default all)
check   runs the device-plugin conformance suite against the plugin that registers in DIR. Each check
        is PASS; FAIL (the plugin breaks a rule the kubelet enforces); WARN (it misses a recommended
        practice: re-registering after a dropped stream, health that recovers, IDs of at most 63
        characters, …); or SKIP (the check does not apply, e.g. an RPC not advertised or no --pid).
        --strict   every WARN becomes a FAIL
        --pid PID  also send SIGTERM to PID at the end and expect its socket unlinked
        --dra      check a DRA driver instead: registration through the plugin watcher in
                   --plugins-registry-dir, its ResourceSlices for --node-name (kubelet-sim-node), prepare
                   and unprepare of a claim the suite allocates, a kubelet restart and health. Without
                   --api-server the suite serves its own API server (on --api-port, default any) and
                   prints its URL; --kubeconfig-out writes a kubeconfig for the driver. --cdi-dir: where
                   the driver writes CDI specs (else cdi-spec is skipped). plugin-restart and node-reboot
                   are skipped: the CLI cannot restart a driver or reboot a node.
        (exit 0: no check failed; 1: a check failed; 2: usage error)
`;

const FLAGS = {
  serve: {
    dir: { type: 'string', multiple: true },
    json: { type: 'boolean' },
    'pod-resources-socket': { type: 'string', multiple: true },
    'plugins-registry': { type: 'string', multiple: true },
    'accept-v1alpha': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
    dra: { type: 'boolean' },
    'kubeconfig-out': { type: 'string', multiple: true },
    'api-port': { type: 'string', multiple: true },
    'node-name': { type: 'string', multiple: true },
    nodes: { type: 'string', multiple: true },
    'cdi-dir': { type: 'string', multiple: true },
    'dev-root': { type: 'string', multiple: true },
    'resource-api-version': { type: 'string', multiple: true },
  },
  check: {
    dir: { type: 'string', multiple: true },
    json: { type: 'boolean' },
    resource: { type: 'string', multiple: true },
    pid: { type: 'string', multiple: true },
    restarts: { type: 'string', multiple: true },
    timeout: { type: 'string', multiple: true },
    strict: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
    dra: { type: 'boolean' },
    driver: { type: 'string', multiple: true },
    'plugins-registry-dir': { type: 'string', multiple: true },
    'api-server': { type: 'string', multiple: true },
    'api-port': { type: 'string', multiple: true },
    'token-file': { type: 'string', multiple: true },
    'kubeconfig-out': { type: 'string', multiple: true },
    'node-name': { type: 'string', multiple: true },
    namespace: { type: 'string', multiple: true },
    'cdi-dir': { type: 'string', multiple: true },
    'publish-timeout': { type: 'string', multiple: true },
  },
} as const satisfies Record<'serve' | 'check', ParseArgsConfig['options']>;

function integer(flag: string, value: string, min: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min) {
    throw new UsageError(`${flag} needs an integer of at least ${min}, got ${JSON.stringify(value)}`);
  }
  return n;
}

/** Parses the arguments after the binary name; throws {@link UsageError} for anything it does not understand. */
export function parseArgs(argv: readonly string[]): CliArgs {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    return { command: 'help' };
  }
  if (command === '--version') return { command: 'version' };
  if (command !== 'serve' && command !== 'check') {
    throw new UsageError(`unknown command ${JSON.stringify(command)}; expected serve or check`);
  }
  let parsed: { values: Record<string, string[] | boolean | undefined>; positionals: string[] };
  try {
    parsed = nodeParseArgs({
      args: rest,
      options: FLAGS[command],
      strict: true,
      allowPositionals: true,
    }) as typeof parsed;
  } catch (err) {
    throw new UsageError(usageMessage(command, err));
  }
  if (parsed.values['help'] === true) return { command: 'help' };
  const [extra] = parsed.positionals;
  if (extra !== undefined) throw new UsageError(`unknown argument ${JSON.stringify(extra)} for ${command}`);
  const values = new Map<string, string>();
  for (const [name, given] of Object.entries(parsed.values)) {
    if (!Array.isArray(given)) continue;
    if (given.length > 1) throw new UsageError(`--${name} given twice`);
    if (given[0] === undefined || given[0] === '') throw new UsageError(`--${name} needs a value`);
    values.set(`--${name}`, given[0]);
  }
  const flags = new Set(
    Object.keys(parsed.values)
      .filter((name) => parsed.values[name] === true)
      .map((name) => `--${name}`),
  );
  // Paths become absolute: gRPC reads `unix:dp/kubelet.sock` as a host name, not a relative path.
  const path = (flag: string): string | undefined => {
    const value = values.get(flag);
    return value === undefined ? undefined : resolve(value);
  };
  const dir = path('--dir');
  const json = flags.has('--json');
  if (command === 'check') {
    const draOnly = [
      '--driver',
      '--plugins-registry-dir',
      '--api-server',
      '--api-port',
      '--token-file',
      '--kubeconfig-out',
      '--node-name',
      '--namespace',
      '--cdi-dir',
      '--publish-timeout',
    ];
    const dpOnly = ['--resource', '--pid', '--restarts'];
    const misplaced = (flags.has('--dra') ? dpOnly : draOnly).find((f) => values.has(f));
    if (misplaced !== undefined) {
      throw new UsageError(
        `${misplaced} ${flags.has('--dra') ? 'is not a flag of check --dra' : 'needs --dra'}`,
      );
    }
    if (flags.has('--dra')) return draCheckArgs(values, flags, path, dir, json);
  }
  if (command === 'serve') {
    const draOnly = serveDraOnly.find((f) => values.has(f));
    if (!flags.has('--dra') && draOnly !== undefined) throw new UsageError(`${draOnly} needs --dra`);
    if (flags.has('--dra')) return draServeArgs(values, flags, path, dir, json);
  }
  if (dir === undefined) throw new UsageError(`${command} needs --dir DIR`);
  if (command === 'serve') {
    const podResourcesSocket = path('--pod-resources-socket');
    const pluginsRegistryDir = path('--plugins-registry');
    return {
      command,
      dir,
      json,
      acceptV1alpha: flags.has('--accept-v1alpha'),
      ...(podResourcesSocket === undefined ? {} : { podResourcesSocket }),
      ...(pluginsRegistryDir === undefined ? {} : { pluginsRegistryDir }),
    };
  }
  const resource = values.get('--resource');
  const pid = values.get('--pid');
  const restarts = values.get('--restarts');
  const timeout = values.get('--timeout');
  return {
    command,
    dir,
    json,
    restarts: restarts === undefined ? 1 : integer('--restarts', restarts, 0),
    timeoutSeconds: timeout === undefined ? 30 : integer('--timeout', timeout, 1),
    strict: flags.has('--strict'),
    ...(resource === undefined ? {} : { resource }),
    ...(pid === undefined ? {} : { pid: integer('--pid', pid, 1) }),
  };
}

/** `--api-port`: 1…65535. */
function port(value: string): number {
  const n = integer('--api-port', value, 1);
  if (n > 65_535) throw new UsageError(`--api-port needs a port of at most 65535, got ${n}`);
  return n;
}

/** The flags of `serve` that only `serve --dra` takes. */
const serveDraOnly = [
  '--kubeconfig-out',
  '--api-port',
  '--node-name',
  '--nodes',
  '--cdi-dir',
  '--dev-root',
  '--resource-api-version',
];

function draServeArgs(
  values: ReadonlyMap<string, string>,
  flags: ReadonlySet<string>,
  path: (flag: string) => string | undefined,
  dir: string | undefined,
  json: boolean,
): DraServeArgs {
  if (flags.has('--accept-v1alpha')) throw new UsageError('--accept-v1alpha is not a flag of serve --dra');
  const pluginsRegistryDir = path('--plugins-registry');
  if (pluginsRegistryDir === undefined) throw new UsageError('serve --dra needs --plugins-registry DIR');
  const version = values.get('--resource-api-version');
  if (version !== undefined && !(resourceApiVersions as readonly string[]).includes(version)) {
    throw new UsageError(
      `--resource-api-version needs one of ${resourceApiVersions.join(', ')}, got ${JSON.stringify(version)}`,
    );
  }
  const nodeName = values.get('--node-name');
  if (nodeName !== undefined && !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(nodeName)) {
    throw new UsageError(`--node-name needs a DNS subdomain name, got ${JSON.stringify(nodeName)}`);
  }
  const nodes = values.get('--nodes');
  const apiPort = values.get('--api-port');
  const optional = (key: keyof DraServeArgs, value: string | number | undefined): Partial<DraServeArgs> =>
    value === undefined ? {} : { [key]: value };
  return {
    command: 'serve-dra',
    pluginsRegistryDir,
    json,
    nodes: nodes === undefined ? 1 : integer('--nodes', nodes, 1),
    cdiDir: path('--cdi-dir') ?? '/var/run/cdi',
    devRoot: path('--dev-root') ?? '/dev',
    ...optional('dir', dir),
    ...optional('nodeName', nodeName),
    ...optional('apiPort', apiPort === undefined ? undefined : port(apiPort)),
    ...optional('kubeconfigOut', path('--kubeconfig-out')),
    ...optional('podResourcesSocket', path('--pod-resources-socket')),
    ...optional('resourceApiVersion', version),
  };
}

function draCheckArgs(
  values: ReadonlyMap<string, string>,
  flags: ReadonlySet<string>,
  path: (flag: string) => string | undefined,
  dir: string | undefined,
  json: boolean,
): DraCheckArgs {
  const driver = values.get('--driver');
  if (driver === undefined) throw new UsageError('check --dra needs --driver NAME');
  const pluginsRegistryDir = path('--plugins-registry-dir');
  if (pluginsRegistryDir === undefined) throw new UsageError('check --dra needs --plugins-registry-dir DIR');
  const apiServer = values.get('--api-server');
  if (apiServer !== undefined && !/^https?:\/\/[^/]/.test(apiServer)) {
    throw new UsageError(`--api-server needs an http:// or https:// URL, got ${JSON.stringify(apiServer)}`);
  }
  if (apiServer !== undefined && values.has('--api-port')) {
    throw new UsageError('--api-port is for the built-in API server: not with --api-server');
  }
  if (apiServer === undefined && values.has('--token-file')) {
    throw new UsageError('--token-file needs --api-server (the built-in API server takes no token)');
  }
  const apiPort = values.get('--api-port');
  const timeout = values.get('--timeout');
  const publishTimeout = values.get('--publish-timeout');
  const optional = (key: keyof DraCheckArgs, value: string | number | undefined): Partial<DraCheckArgs> =>
    value === undefined ? {} : { [key]: value };
  return {
    command: 'check-dra',
    driver,
    pluginsRegistryDir,
    json,
    strict: flags.has('--strict'),
    timeoutSeconds: timeout === undefined ? 30 : integer('--timeout', timeout, 1),
    publishTimeoutSeconds:
      publishTimeout === undefined ? 10 : integer('--publish-timeout', publishTimeout, 1),
    ...optional('apiServer', apiServer),
    ...optional('apiPort', apiPort === undefined ? undefined : integer('--api-port', apiPort, 1)),
    ...optional('tokenFile', path('--token-file')),
    ...optional('kubeconfigOut', path('--kubeconfig-out')),
    ...optional('nodeName', values.get('--node-name')),
    ...optional('namespace', values.get('--namespace')),
    ...optional('cdiDir', path('--cdi-dir')),
    ...optional('dir', dir),
  };
}

/** parseArgs's error, said the way the rest of this CLI says it (`--pid needs a value`, `unknown flag "--x" for serve`). */
function usageMessage(command: 'serve' | 'check', err: unknown): string {
  const code = (err as { code?: string }).code;
  const message = err instanceof Error ? err.message : String(err);
  const option = /'(-[^' ]*)/.exec(message)?.[1] ?? '';
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION')
    return `unknown flag ${JSON.stringify(option)} for ${command}`;
  if (code !== 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') return message;
  if (/argument missing/.test(message)) return `${option} needs a value`;
  if (/ambiguous/.test(message))
    return `${option} needs a value; write ${option}=VALUE for one that starts with "-"`;
  return `${option} does not take a value`;
}
