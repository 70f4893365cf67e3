import { readdir, stat } from 'node:fs/promises';
import { posix } from 'node:path';
import { globToRegExp, hasGlobSyntax } from './glob-pattern';

/**
 * Expands a device-path glob (`/dev/ttyUSB*`, `/dev/snd/*`) against the dev root, one segment at a time (`*`
 * never crosses `/`, `.` and `..` segments never match). Returns host paths (`/dev/...`), sorted; [] when
 * nothing matches or the pattern is not under /dev.
 */
export async function expandDevGlob(devRoot: string, pattern: string): Promise<string[]> {
  if (!pattern.startsWith('/dev/')) return [];
  const segments = pattern
    .slice('/dev/'.length)
    .split('/')
    .filter((s) => s !== '');
  if (segments.some((s) => s === '.' || s === '..')) return [];
  let current: string[] = [''];
  for (const segment of segments) {
    const next: string[] = [];
    if (!hasGlobSyntax(segment)) {
      for (const dir of current) next.push(posix.join(dir, segment));
    } else {
      const re = globToRegExp(segment, { separator: '/' });
      for (const dir of current) {
        const entries = await readdir(posix.join(devRoot, dir)).catch(() => [] as string[]);
        for (const entry of entries) if (re.test(entry)) next.push(posix.join(dir, entry));
      }
    }
    current = next;
    if (current.length === 0) return [];
  }
  const found = await Promise.all(
    current.map(async (rel) =>
      (await stat(posix.join(devRoot, rel)).catch(() => undefined)) ? rel : undefined,
    ),
  );
  return found
    .filter((rel): rel is string => rel !== undefined)
    .map((rel) => `/dev/${rel}`)
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
}
