'use strict';
// Run by code-cache.mjs with the image's own Node, its environment and `--predictable` (V8's hash seed fixed:
// the same bundle gives the same bytes; V8 does not check a cache against that option):
//   node --predictable code-cache-producer.cjs BUNDLE OUT
// Writes the V8 code cache of BUNDLE wrapped as app-main.cjs wraps it. It first runs the bundle's module
// initialization, as `BUNDLE --version` (every kdp binary prints its version and exits), and writes the cache as
// the process exits: the cache then holds the bytecode of every function that initialization ran, not only the
// top-level code and the outline of the rest, whose bodies (every CommonJS module's) V8 would otherwise compile at
// each start. Functions that only serving runs are still compiled when first called.
const { readFileSync, writeFileSync } = require('node:fs');
const Module = require('node:module');
const v8 = require('node:v8');
const { Script } = require('node:vm');

const [bundle, out] = process.argv.slice(2);
if (bundle === undefined || out === undefined) throw new Error('usage: code-cache-producer.cjs BUNDLE OUT');
const filename = '/app/bundle.js';
const script = new Script(Module.wrap(readFileSync(bundle, 'utf8')), { filename });
// V8 accepts a cache only under the options it was made with. A bundle's first import changes some at run time
// (@kdp/core/start: the optimizing compiler held, baseline code flushed); here they stay as the image starts.
v8.setFlagsFromString = () => undefined;
process.on('exit', (code) => {
  if (code === 0) writeFileSync(out, script.createCachedData());
  else console.error(`code-cache-producer: ${bundle} --version exited with ${code}; no cache written`);
});
process.argv = [process.execPath, filename, '--version'];
const app = new Module(filename, module);
app.filename = filename;
script
  .runInThisContext()
  .call(app.exports, app.exports, Module.createRequire(filename), app, filename, '/app');
