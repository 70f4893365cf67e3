/** One attribute a CEL expression reads: `device.attributes['DOMAIN'].NAME` or `'NAME' in device.attributes['DOMAIN']`. */
export interface CelAttributeRef {
  readonly domain: string;
  readonly name: string;
  /** The string literal it is compared with (`… == 'VALUE'`), if any. */
  readonly equals?: string;
}

const QUOTED = `(?:'([^']*)'|"([^"]*)")`;
const ACCESS = new RegExp(
  `device\\.attributes\\[${QUOTED}\\]\\.([A-Za-z_][A-Za-z0-9_]*)(?:\\s*==\\s*${QUOTED})?`,
  'g',
);
const PRESENCE = new RegExp(`${QUOTED}\\s+in\\s+device\\.attributes\\[${QUOTED}\\]`, 'g');
const DRIVER = new RegExp(`device\\.driver\\s*==\\s*${QUOTED}`, 'g');

/**
 * The device attributes a DRA CEL selector reads (every field access and `in` test on `device.attributes[…]`),
 * with the literal each is compared to. A reading through anything else (`device.attributes[x]`, a macro over
 * the map) is not recognised, and {@link celUnrecognised} reports it.
 */
export function celAttributeRefs(expression: string): CelAttributeRef[] {
  const refs: CelAttributeRef[] = [];
  for (const match of expression.matchAll(ACCESS)) {
    const value = match[4] ?? match[5];
    refs.push({
      domain: (match[1] ?? match[2]) as string,
      name: match[3] as string,
      ...(value !== undefined ? { equals: value } : {}),
    });
  }
  for (const match of expression.matchAll(PRESENCE))
    refs.push({ domain: (match[3] ?? match[4]) as string, name: (match[1] ?? match[2]) as string });
  return refs;
}

/** The driver names a CEL selector compares `device.driver` with. */
export function celDrivers(expression: string): string[] {
  return [...expression.matchAll(DRIVER)].map((match) => (match[1] ?? match[2]) as string);
}

/** Uses of `device.attributes` or `device.capacity` that {@link celAttributeRefs} does not read (empty: none). */
export function celUnrecognised(expression: string): string[] {
  const rest = expression.replace(ACCESS, '').replace(PRESENCE, '');
  return [...rest.matchAll(/device\.(attributes|capacity)\b[^\s]*/g)].map((match) => match[0]);
}
