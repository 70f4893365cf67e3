'use strict';
// /app/main.js of every image (its `#!/nodejs/bin/node` line is added by app-layer.mjs): it compiles the
// bundle, /app/bundle.js, with the V8 code cache the image was built with, /app/bundle.cache (code-cache.mjs:
// brotli-compressed), and runs it as Node runs a main module. The cache holds the bytecode of the bundle's
// top-level code and of every function its module initialization runs, and the outline of every other function,
// so V8 neither parses the whole bundle nor compiles each module's body again at each start; the functions that
// only serving runs are compiled on their first call. V8 refuses a cache made by another V8 or under other V8
// options (a user's NODE_OPTIONS replacing the image's, say) and compiles the source as usual. The cache is
// read-only in the image, never written. What happened is left for the start log (`codeCache`: accepted,
// rejected or absent); a cache that does not decompress counts as rejected.
const { readFileSync } = require('node:fs');
const Module = require('node:module');
const { join } = require('node:path');
const { Script, constants } = require('node:vm');
const { brotliDecompressSync } = require('node:zlib');

const filename = join(__dirname, 'bundle.js');
let packed;
try {
  packed = readFileSync(join(__dirname, 'bundle.cache'));
} catch (error) {
  if (error.code !== 'ENOENT') throw error;
}
let cachedData;
try {
  cachedData = packed === undefined ? undefined : brotliDecompressSync(packed);
} catch {
  // Not a brotli stream (a damaged or foreign file): the bundle is compiled without it, as V8 would do.
}
const script = new Script(Module.wrap(readFileSync(filename, 'utf8')), {
  filename,
  cachedData,
  importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
});
globalThis[Symbol.for('kdp.codeCache')] =
  packed === undefined
    ? 'absent'
    : cachedData === undefined || script.cachedDataRejected
      ? 'rejected'
      : 'accepted';
const bundle = new Module(filename, module);
bundle.filename = filename;
bundle.paths = Module._nodeModulePaths(__dirname);
const compiled = script.runInThisContext();
compiled.call(bundle.exports, bundle.exports, Module.createRequire(filename), bundle, filename, __dirname);
bundle.loaded = true;
