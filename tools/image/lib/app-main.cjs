'use strict';
// /app/main.js of every image (its `#!/nodejs/bin/node` line is added by app-layer.mjs): it compiles the
// bundle, /app/bundle.js, with the V8 code cache the image was built with, /app/bundle.cache
// (code-cache.mjs), and runs it as Node runs a main module. The cache holds what compiling the bundle produces
// before it runs: the top-level code's bytecode and the outline of every function in it, so V8 does not parse
// the whole bundle again at each start (a sixth of a plugin's start to ready); each function is still compiled
// on its first call. V8 refuses a cache made by another V8 or under other V8 options (a user's NODE_OPTIONS
// replacing the image's, say) and compiles the source as usual. The cache is read-only in the image, never
// written. What happened is left for the start log (`codeCache`: accepted, rejected or absent).
const { readFileSync } = require('node:fs');
const Module = require('node:module');
const { join } = require('node:path');
const { Script, constants } = require('node:vm');

const filename = join(__dirname, 'bundle.js');
let cachedData;
try {
  cachedData = readFileSync(join(__dirname, 'bundle.cache'));
} catch (error) {
  if (error.code !== 'ENOENT') throw error;
}
const script = new Script(Module.wrap(readFileSync(filename, 'utf8')), {
  filename,
  cachedData,
  importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
});
globalThis[Symbol.for('kdp.codeCache')] =
  cachedData === undefined ? 'absent' : script.cachedDataRejected ? 'rejected' : 'accepted';
const bundle = new Module(filename, module);
bundle.filename = filename;
bundle.paths = Module._nodeModulePaths(__dirname);
const compiled = script.runInThisContext();
compiled.call(bundle.exports, bundle.exports, Module.createRequire(filename), bundle, filename, __dirname);
bundle.loaded = true;
