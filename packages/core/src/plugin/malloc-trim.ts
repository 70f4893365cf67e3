import type * as Koffi from 'koffi';

/** The C library whose allocator is trimmed: glibc's, which every image ships (Debian's libc6). */
const LIBC = 'libc.so.6';

/** Options of {@link createMallocTrim}. */
export interface MallocTrimOptions {
  /** Loads koffi; default `require('koffi')`, external to every bundle and shipped in every plugin image. */
  readonly loadKoffi?: () => typeof Koffi;
  /** Told once, on the first call, why there is nothing to trim with (no koffi, no glibc); default silent. */
  readonly onUnavailable?: (reason: string) => void;
}

/**
 * glibc's `malloc_trim(0)`, bound through koffi on its first call: hands back to the system every whole free page
 * inside the C heap's arenas, where `free()` gives back only the top of the heap. After a burst of gRPC calls the
 * buffers Node and nghttp2 freed leave such holes, resident until then (measured on the GPU plugin after 3,000
 * Allocates: 31 → 25 MiB anonymous). The binding is made on the first call, so a process that
 * never trims never loads koffi; where it cannot be made (koffi missing, a C library without `malloc_trim`) every
 * call does nothing, after `onUnavailable` is told why once.
 */
export function createMallocTrim(options: MallocTrimOptions = {}): () => void {
  let trim: ((pad: number) => number) | null | undefined;
  return () => {
    if (trim === undefined) trim = bind(options);
    trim?.(0);
  };
}

function bind(options: MallocTrimOptions): ((pad: number) => number) | null {
  try {
    const koffi = (options.loadKoffi ?? (() => require('koffi') as typeof Koffi))();
    return koffi.load(LIBC).func('int malloc_trim(size_t pad)') as (pad: number) => number;
  } catch (error) {
    options.onUnavailable?.(error instanceof Error ? error.message : String(error));
    return null;
  }
}
