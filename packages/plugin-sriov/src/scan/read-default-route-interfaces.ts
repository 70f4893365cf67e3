import type { Sysfs } from '@kdp/topology';

/**
 * Parses /proc/net/route and returns the interfaces holding an IPv4 default route (destination 00000000,
 * mask 00000000). Garbage lines are skipped; garbage in gives an empty set.
 */
export function parseDefaultRouteInterfaces(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 8) continue;
    const [iface, destination, , , , , , mask] = fields;
    if (destination === '00000000' && mask === '00000000' && iface !== undefined && iface !== '') {
      names.add(iface);
    }
  }
  return names;
}

/** Reads `net/route` from a procfs reader; an unreadable file means no default route is known. */
export async function readDefaultRouteInterfaces(procfs: Sysfs): Promise<Set<string>> {
  const text = await procfs.read('net/route');
  return text === undefined ? new Set() : parseDefaultRouteInterfaces(text);
}
