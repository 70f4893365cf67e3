import type { ConfigManagerFlags } from './config-manager-flags';

/**
 * The configuration NVIDIA's config-manager selects among `files` (the source directory's file names) for the
 * label's value: the label's key (which must exist), else `defaultConfig` (which must exist), else the first
 * fallback that applies (`named`: a key `default`; `single`: the only key; `empty`: no configuration, '').
 * Returns the key ('' for the empty configuration); throws when nothing applies.
 */
export function selectConfigName(
  files: readonly string[],
  label: string,
  flags: Pick<ConfigManagerFlags, 'defaultConfig' | 'fallbackStrategies'>,
): { readonly name: string; readonly reason: string } {
  if (files.length === 0) throw new Error('no configuration files available');
  if (label !== '') {
    if (!files.includes(label)) throw new Error(`specified config ${label} does not exist`);
    return { name: label, reason: 'node label' };
  }
  if (flags.defaultConfig !== '') {
    if (!files.includes(flags.defaultConfig))
      throw new Error(`specified default config ${flags.defaultConfig} does not exist`);
    return { name: flags.defaultConfig, reason: 'default config' };
  }
  for (const strategy of flags.fallbackStrategies) {
    if (strategy === 'named' && files.includes('default'))
      return { name: 'default', reason: 'fallback named' };
    if (strategy === 'single' && files.length === 1 && files[0] !== undefined)
      return { name: files[0], reason: 'fallback single' };
    if (strategy === 'empty') return { name: '', reason: 'fallback empty' };
  }
  throw new Error(
    `no config was set, no default was provided, and all fallbacks failed (${files.join(', ')})`,
  );
}
