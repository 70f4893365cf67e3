/** Capability minors from `/proc/driver/nvidia-caps/mig-minors`, keyed by path ("gpu0/gi1/access"). */
export type MigMinors = ReadonlyMap<string, number>;

const LINE = /^(config|monitor|gpu\d{1,3}\/gi\d{1,3}(?:\/ci\d{1,3})?\/access)\s+(\d{1,7})$/;

/** Parses mig-minors lines (`gpu0/gi1/access 12`); malformed lines are skipped. */
export function parseMigMinors(text: string): MigMinors {
  const out = new Map<string, number>();
  for (const raw of text.split('\n')) {
    const match = LINE.exec(raw.trim());
    if (match) out.set(match[1] as string, Number(match[2]));
  }
  return out;
}

/** Reads `DeviceFileMinor: N` from a /proc/driver/nvidia/capabilities/…/access file; undefined when absent. */
export function parseDeviceFileMinor(text: string): number | undefined {
  const match = /^DeviceFileMinor:\s*(\d{1,7})\s*$/m.exec(text);
  return match ? Number(match[1]) : undefined;
}
