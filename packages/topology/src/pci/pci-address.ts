/** A PCI function address split into its parts (numbers). */
export interface PciAddress {
  readonly domain: number;
  readonly bus: number;
  readonly device: number;
  readonly function: number;
}

const addressPattern = /^([0-9a-f]{4,8}):([0-9a-f]{2}):([0-1][0-9a-f])\.([0-7])$/;

/** Parses "0000:3b:00.0" (lower-case hex, as sysfs names functions; VMD domains have up to 8 digits). */
export function parsePciAddress(text: string): PciAddress | undefined {
  const match = addressPattern.exec(text);
  if (!match) return undefined;
  return {
    domain: parseInt(match[1] as string, 16),
    bus: parseInt(match[2] as string, 16),
    device: parseInt(match[3] as string, 16),
    function: Number(match[4]),
  };
}

/** Whether a string is a sysfs PCI function address such as "0000:3b:00.0". */
export function isPciAddress(text: string): boolean {
  return addressPattern.test(text);
}
