/** The key–value lines of a KFD topology `properties` file, values as numbers (non-numeric lines skipped). */
export type KfdProperties = ReadonlyMap<string, number>;

/** Parses `name value` lines (`gpu_id` is a separate file; `drm_render_minor 128`, `location_id 15360`). */
export function parseKfdProperties(text: string): KfdProperties {
  const out = new Map<string, number>();
  for (const raw of text.split('\n')) {
    const match = /^([a-z_][a-z0-9_]{0,63})\s+(-?\d{1,20})$/.exec(raw.trim());
    if (!match) continue;
    const value = Number(match[2]);
    if (Number.isSafeInteger(value)) out.set(match[1] as string, value);
  }
  return out;
}

/** Decodes a KFD `location_id` (bus<<8 | device<<3 | function) and `domain` into a PCI address. */
export function kfdPciAddress(locationId: number, domain = 0): string | undefined {
  if (!Number.isInteger(locationId) || locationId < 0 || locationId > 0xffff) return undefined;
  if (!Number.isInteger(domain) || domain < 0 || domain > 0xffff) return undefined;
  const hex = (value: number, digits: number): string => value.toString(16).padStart(digits, '0');
  return `${hex(domain, 4)}:${hex((locationId >> 8) & 0xff, 2)}:${hex((locationId >> 3) & 0x1f, 2)}.${locationId & 7}`;
}
