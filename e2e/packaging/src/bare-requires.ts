import { builtinModules } from 'node:module';

const builtins = new Set(builtinModules);

/**
 * The packages a CommonJS file loads: `require("x")` calls whose specifier is neither relative nor a Node
 * built-in, reduced to the package name (`@scope/name` or `name`, without a subpath). Sorted, unique.
 */
export function bareRequires(code: string): string[] {
  const names = new Set<string>();
  for (const [, specifier = ''] of code.matchAll(/\brequire\(\s*["']([^"']+)["']\s*\)/g)) {
    if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) continue;
    const parts = specifier.split('/');
    const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? '');
    if (!builtins.has(name)) names.add(name);
  }
  return [...names].sort();
}
