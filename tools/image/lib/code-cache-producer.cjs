'use strict';
// Run by code-cache.mjs with the image's own Node, its environment and `--predictable` (V8's hash seed fixed:
// the same bundle gives the same bytes; V8 does not check a cache against that option):
//   node --predictable code-cache-producer.cjs BUNDLE OUT
// Writes the V8 code cache of BUNDLE wrapped as app-main.cjs wraps it: what compiling it produces before it
// runs (the top-level code's bytecode and the outline of every function in it).
const { readFileSync, writeFileSync } = require('node:fs');
const Module = require('node:module');
const { Script } = require('node:vm');

const [bundle, out] = process.argv.slice(2);
if (bundle === undefined || out === undefined) throw new Error('usage: code-cache-producer.cjs BUNDLE OUT');
const script = new Script(Module.wrap(readFileSync(bundle, 'utf8')), { filename: '/app/bundle.js' });
writeFileSync(out, script.createCachedData());
