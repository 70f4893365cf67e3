/**
 * What every kdp bundle holds in place of `@grpc/proto-loader` (esbuild `--alias`, in each binary's build). grpc-js
 * loads that package only to serve channelz or ORCA, from `.proto` files beside its own sources that no bundle
 * carries, and kdp serves neither; bundling it added protobufjs, long and lodash (151 kB of a bundle). A use fails
 * here with this message, where it failed before at the missing `.proto` file.
 *
 * @packageDocumentation
 */

/** Throws: kdp's bundles do not carry `@grpc/proto-loader`. */
export function loadSync(): never {
  throw new Error('@grpc/proto-loader is not in this bundle: kdp serves neither channelz nor ORCA');
}
