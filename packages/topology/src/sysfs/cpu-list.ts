/** The largest CPU number a cpulist or cpumask may name (the kernel's NR_CPUS tops out at 8192). */
export const maxCpuNumber = 65535;

/**
 * Parses a kernel cpulist ("0-3,8,10-11"; "" = no CPUs) into sorted, distinct CPU numbers.
 * Returns undefined for anything else (garbage, reversed ranges, numbers above `maxCpuNumber`).
 */
export function parseCpuList(text: string): number[] | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return [];
  const cpus = new Set<number>();
  for (const part of trimmed.split(',')) {
    const match = /^(\d{1,6})(?:-(\d{1,6}))?$/.exec(part.trim());
    if (!match) return undefined;
    const first = Number(match[1]);
    const last = match[2] === undefined ? first : Number(match[2]);
    if (last < first || last > maxCpuNumber) return undefined;
    for (let cpu = first; cpu <= last; cpu++) cpus.add(cpu);
  }
  return [...cpus].sort((a, b) => a - b);
}

/**
 * Parses a kernel cpumask ("00000000,0000ff0f": comma-separated 32-bit hex words, most significant first)
 * into sorted CPU numbers. Returns undefined for anything else.
 */
export function parseCpuMask(text: string): number[] | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  const words = trimmed.split(',');
  if (words.length * 32 > maxCpuNumber + 1) return undefined;
  const cpus: number[] = [];
  for (let w = 0; w < words.length; w++) {
    const word = words[words.length - 1 - w] as string;
    if (!/^[0-9a-fA-F]{1,8}$/.test(word)) return undefined;
    const bits = parseInt(word, 16);
    for (let bit = 0; bit < 32; bit++) if ((bits >>> bit) & 1) cpus.push(w * 32 + bit);
  }
  return cpus.sort((a, b) => a - b);
}

/** Formats CPU numbers as a kernel cpulist ("0-3,8"), the inverse of `parseCpuList`. */
export function formatCpuList(cpus: readonly number[]): string {
  const sorted = [...new Set(cpus)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === (sorted[j] as number) + 1) j++;
    parts.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}
