import type * as Koffi from 'koffi';

/** The C library the runtime calls into: glibc's, which every image ships (Debian's libc6). */
const LIBC = 'libc.so.6';

/** How {@link bindLibcFunction} reaches the C library. */
export interface LibcOptions {
  /** Loads koffi; default `require('koffi')`, external to every bundle and shipped in every plugin image. */
  readonly loadKoffi?: () => typeof Koffi;
  /** Told once, on the first call, why there is nothing to call (no koffi, no such function); default silent. */
  readonly onUnavailable?: (reason: string) => void;
}

/**
 * A function of glibc bound through koffi from its C `signature` (`'int malloc_trim(size_t pad)'`), or null after
 * `onUnavailable` was told why it could not be (koffi missing, a C library without it, such as musl).
 */
export function bindLibcFunction<F>(signature: string, options: LibcOptions): F | null {
  try {
    const koffi = (options.loadKoffi ?? (() => require('koffi') as typeof Koffi))();
    return koffi.load(LIBC).func(signature) as F;
  } catch (error) {
    options.onUnavailable?.(error instanceof Error ? error.message : String(error));
    return null;
  }
}
