import { bindLibcFunction, type LibcOptions } from './libc-function';

/** Options of {@link createMallocTrim}. */
export type MallocTrimOptions = LibcOptions;

/**
 * glibc's `malloc_trim(0)`, bound through koffi on its first call: hands back to the system every whole free page
 * inside the C heap's arenas, where `free()` gives back only the top of the heap. After a burst of gRPC calls the
 * buffers Node and nghttp2 freed leave such holes, resident until then (measured on the GPU plugin after 3,000
 * Allocates: 31 → 25 MiB anonymous). Where the binding cannot be made (koffi missing, a C library without
 * `malloc_trim`) every call does nothing, after `onUnavailable` is told why once.
 */
export function createMallocTrim(options: MallocTrimOptions = {}): () => void {
  let trim: ((pad: number) => number) | null | undefined;
  return () => {
    if (trim === undefined) trim = bindLibcFunction('int malloc_trim(size_t pad)', options);
    trim?.(0);
  };
}
