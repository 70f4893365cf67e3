import { hasGlobSyntax, type Devfs } from '@kdp/topology';

/**
 * The `/dev` directories whose listings decide what a glob (`/dev/serial/by-id/*`) expands to now: at each
 * level, the directories matched so far, where the next segment is a glob, the last segment, or a fixed name
 * that does not exist (yet). A change to what the glob matches changes one of these listings.
 */
export async function globListings(devfs: Devfs, pattern: string): Promise<string[]> {
  if (!pattern.startsWith('/dev/')) return [];
  const segments = pattern
    .slice('/dev/'.length)
    .split('/')
    .filter((s) => s !== '');
  const listed: string[] = [];
  let level = ['/dev'];
  for (let k = 0; k < segments.length && level.length > 0; k++) {
    const segment = segments[k] as string;
    const next = await devfs.glob(`/dev/${segments.slice(0, k + 1).join('/')}`);
    const last = k === segments.length - 1;
    const found = new Set(next);
    for (const dir of level) {
      if (last || hasGlobSyntax(segment) || !found.has(`${dir}/${segment}`)) listed.push(dir);
    }
    level = next;
  }
  return [...new Set(listed)];
}
