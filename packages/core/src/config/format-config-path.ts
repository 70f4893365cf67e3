const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

/**
 * Formats a field path as it reads in a message: `resourceList[2].selectors.vendors[0]`; keys that are not
 * plain identifiers are quoted (`annotations["example.com/x"]`).
 */
export function formatConfigPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'symbol') out += `[${String(key)}]`;
    else if (IDENTIFIER.test(key)) out += out ? `.${key}` : key;
    else out += `[${JSON.stringify(key)}]`;
  }
  return out;
}
