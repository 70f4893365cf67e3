import { isRefused, type CompatLayer, type CompatOption } from './compat-layer';

const row = (left: string, option: CompatOption): string =>
  `  ${left.padEnd(32)}  ${isRefused(option) ? `refused: ${option.refuse}` : option.description}`;

/** The --help section of one compat layer: its flags and variables, each accepted (what it does) or refused (why). */
export function formatCompatHelp(layer: CompatLayer, binaryFlags: boolean): string {
  const lines = [`Drop-in for ${layer.anchor}:`];
  if (binaryFlags) {
    for (const [name, option] of Object.entries(layer.flags ?? {}))
      lines.push(row(`-${name}${option.kind === 'value' ? ' VALUE' : ''}`, option));
    for (const [name, option] of Object.entries(layer.env ?? {})) lines.push(row(`$${name}`, option));
  }
  if (layer.defaultConfigPaths !== undefined && layer.defaultConfigPaths.length > 0)
    lines.push(`  default configuration (without --config): ${layer.defaultConfigPaths.join(', ')}`);
  if (layer.configFormat !== undefined)
    lines.push(
      '  its configuration file format is detected and converted (discover --output json shows the result)',
    );
  return lines.join('\n');
}
