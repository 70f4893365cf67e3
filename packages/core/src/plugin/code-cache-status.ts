/** What V8 did with the code cache the image's `/app/main.js` handed it (tools/image/lib/app-main.cjs). */
export type CodeCacheStatus = 'accepted' | 'rejected' | 'absent';

const STATUSES: readonly unknown[] = ['accepted', 'rejected', 'absent'];

/**
 * The code cache's fate at this process's start, as the image's `/app/main.js` left it on the global object
 * (`Symbol.for('kdp.codeCache')`); undefined where the bundle ran without it (`npm start`, the npm binaries).
 */
export function codeCacheStatus(global: object = globalThis): CodeCacheStatus | undefined {
  const status: unknown = (global as Record<symbol, unknown>)[Symbol.for('kdp.codeCache')];
  return STATUSES.includes(status) ? (status as CodeCacheStatus) : undefined;
}
