import { applyCompat, type CompatResult } from './compat/apply-compat';
import { createCompatConfigTransform } from './compat/compat-config';
import { checkRoots, ownFlagProbe, parseCommandLine, type Command, type Program } from './command-line';
import { withDefaultConfigs, type ConfiguredPlugin } from './plugin-config';

/** A command line read: `--help`, `--version`, or `serve` / `discover` with every plugin configured. */
export type ReadCommand =
  | { readonly command: 'help' }
  | { readonly command: 'version' }
  | (Omit<Extract<Command, { command: 'serve' | 'discover' }>, 'plugins'> & {
      readonly plugins: readonly ConfiguredPlugin[];
      /** What the anchors' options did (one line each, logged at start). */
      readonly compatApplied: readonly string[];
    });

/** The commands a command line may name; an anchor's flags without one mean `serve`. */
const COMMANDS = ['serve', 'discover', '--help', '-h', '--version'];

/**
 * Reads a command line: the anchors' flags and environment (a one-plugin binary's compat layers) turned into
 * ours, then parsed; for `serve` and `discover` the roots and the chosen mode's directories checked and default
 * configuration files found. Throws `UsageError` (exit 2).
 */
export async function readCommand(
  program: Program,
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  anchorRoot: string,
  invokedAs?: string,
): Promise<ReadCommand> {
  const compat = translateAnchors(program, argv, env, invokedAs);
  const command = parseCommandLine(program, compat?.argv ?? argv);
  if (command.command === 'help' || command.command === 'version') return command;
  await checkRoots(command.common, program);
  if (command.command === 'serve')
    await command.mode.serveMode.checkDirectories?.(command.common, command.mode.flags);
  const patches = program.multi ? [] : (compat?.patches ?? []);
  const plugins = await withDefaultConfigs(command.plugins, anchorRoot);
  return {
    ...command,
    plugins: plugins.map((invocation) => ({
      ...invocation,
      transform: createCompatConfigTransform(invocation.definition.compat ?? [], patches),
    })),
    compatApplied: compat?.applied ?? [],
  };
}

/** The compat layers of a one-plugin binary applied to its command line; undefined where there are none. */
function translateAnchors(
  program: Program,
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  invokedAs: string | undefined,
): CompatResult | undefined {
  const layers = program.multi ? [] : (program.plugins[0]?.compat ?? []);
  if (layers.length === 0) return undefined;
  const probe = ownFlagProbe(program);
  const compat = applyCompat({
    layers,
    argv,
    env,
    ownFlag: (name, value) => probe.accepts(name, value),
    ownTakesValue: (name) => probe.takesValue(name),
    ...(invokedAs !== undefined ? { invokedAs } : {}),
  });
  // An anchor's DaemonSet `args` replace the image's default `serve`: anchor flags without a command mean serve.
  const implied = compat.anchorFlags && !compat.argv.some((token) => COMMANDS.includes(token));
  const argvOf = implied ? ['serve', ...compat.argv] : compat.argv;
  // The anchors' default flags (gdp's metrics on :8080) where the command serves.
  const serves = argvOf.find((token) => COMMANDS.includes(token)) === 'serve';
  return { ...compat, argv: serves ? [...argvOf, ...compat.serveArgv] : argvOf };
}
