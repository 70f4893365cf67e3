#!/usr/bin/env node
// Committed entry point, so that `npm ci` links `kdp-demo` into node_modules/.bin (npm skips bin links whose
// target is missing, and dist/ only exists after `nx run @kdp/demo:build`).
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const bundle = join(__dirname, '..', 'dist', 'main.js');
if (!existsSync(bundle)) {
  process.stderr.write('kdp-demo: not built yet; run `npm start` or `npx nx run-many -t build` first\n');
  process.exit(1);
}
require(bundle);
