import { resolve } from 'node:path';

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

/** `kubelet-sim check` flags. */
export interface CheckArgs {
  readonly command: 'check';
  readonly dir: string;
  readonly json: boolean;
  readonly resource?: string;
  readonly pid?: number;
  readonly restarts: number;
  readonly timeoutSeconds: number;
}

/** A parsed command line. */
export type CliArgs = ServeArgs | CheckArgs | { readonly command: 'help' } | { readonly command: 'version' };

/** The usage text. */
export const usage = `Usage:
  kubelet-sim serve --dir DIR [--json] [--pod-resources-socket PATH] [--plugins-registry DIR] [--accept-v1alpha]
  kubelet-sim check --dir DIR [--resource NAME] [--pid PID] [--restarts N] [--timeout SECONDS] [--json]
  kubelet-sim --help | --version

serve   runs a simulated kubelet in DIR and prints registrations, device lists and health changes live
check   runs the device-plugin conformance suite against the plugin that registers in DIR
        (exit 0: every check passed or warned; 1: a check failed; 2: usage error)
`;

const valueFlags: Readonly<Record<'serve' | 'check', readonly string[]>> = {
  serve: ['--dir', '--pod-resources-socket', '--plugins-registry'],
  check: ['--dir', '--resource', '--pid', '--restarts', '--timeout'],
};
const boolFlags: Readonly<Record<'serve' | 'check', readonly string[]>> = {
  serve: ['--json', '--accept-v1alpha'],
  check: ['--json'],
};

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
  const values = new Map<string, string>();
  const flags = new Set<string>();
  for (let i = 0; i < rest.length; i += 1) {
    const arg = rest[i] ?? '';
    if (arg === '--help' || arg === '-h') return { command: 'help' };
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    if (valueFlags[command].includes(name)) {
      const value = eq > 0 ? arg.slice(eq + 1) : rest[(i += 1)];
      if (value === undefined || value === '') throw new UsageError(`${name} needs a value`);
      if (values.has(name)) throw new UsageError(`${name} given twice`);
      values.set(name, value);
    } else if (boolFlags[command].includes(arg)) {
      flags.add(arg);
    } else {
      const kind = arg.startsWith('-') ? 'flag' : 'argument';
      throw new UsageError(`unknown ${kind} ${JSON.stringify(arg)} for ${command}`);
    }
  }
  // Paths become absolute: gRPC reads `unix:dp/kubelet.sock` as a host name, not a relative path.
  const path = (flag: string): string | undefined => {
    const value = values.get(flag);
    return value === undefined ? undefined : resolve(value);
  };
  const dir = path('--dir');
  if (dir === undefined) throw new UsageError(`${command} needs --dir DIR`);
  const json = flags.has('--json');
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
    ...(resource === undefined ? {} : { resource }),
    ...(pid === undefined ? {} : { pid: integer('--pid', pid, 1) }),
  };
}
