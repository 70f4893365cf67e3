// What differs between the image architectures: Debian's multiarch triplet, the dynamic loader's path,
// the npm package names, the strip tool and the emulator that runs the other architecture's Node.

/** Per-architecture facts, keyed by the OCI/Debian architecture name. */
export const platforms = {
  amd64: {
    triplet: 'x86_64-linux-gnu',
    loader: { soname: 'ld-linux-x86-64.so.2', link: 'lib64/ld-linux-x86-64.so.2' },
    npmArch: 'x64',
    qemu: 'qemu-x86_64-static',
    stripTools:
      process.arch === 'x64'
        ? ['strip', 'x86_64-linux-gnu-strip', 'llvm-strip']
        : ['x86_64-linux-gnu-strip', 'llvm-strip'],
  },
  arm64: {
    triplet: 'aarch64-linux-gnu',
    loader: { soname: 'ld-linux-aarch64.so.1', link: 'lib/ld-linux-aarch64.so.1' },
    npmArch: 'arm64',
    qemu: 'qemu-aarch64-static',
    stripTools:
      process.arch === 'arm64'
        ? ['strip', 'aarch64-linux-gnu-strip', 'llvm-strip']
        : ['aarch64-linux-gnu-strip', 'llvm-strip'],
  },
};

/** The architectures every image is assembled for; the first is the one tests run. */
export const allArches = ['amd64', 'arm64'];
