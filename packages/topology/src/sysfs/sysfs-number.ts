/** Parses a decimal sysfs value ("12", "-1") into a safe integer; undefined for anything else. */
export function parseSysfsInt(text: string): number | undefined {
  const trimmed = text.trim();
  if (!/^[+-]?\d{1,16}$/.test(trimmed)) return undefined;
  const value = Number(trimmed);
  return Number.isSafeInteger(value) ? value : undefined;
}

/** Parses a hexadecimal sysfs value ("0x10de", "10de") into a safe integer; undefined for anything else. */
export function parseSysfsHex(text: string): number | undefined {
  const match = /^(?:0[xX])?([0-9a-fA-F]{1,13})$/.exec(text.trim());
  if (!match) return undefined;
  const value = parseInt(match[1] as string, 16);
  return Number.isSafeInteger(value) ? value : undefined;
}

/** Formats a number as a sysfs-style hex ID padded to `digits` ("0x10de", "0x030200"). */
export function formatSysfsHex(value: number, digits: number): string {
  return `0x${value.toString(16).padStart(digits, '0')}`;
}
