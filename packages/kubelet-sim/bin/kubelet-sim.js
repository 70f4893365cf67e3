#!/usr/bin/env node
// Committed launcher: npm ci links only bins whose target exists, and dist/ appears with the build.
const bundle = require('node:path').join(__dirname, '..', 'dist', 'main.js');
if (!require('node:fs').existsSync(bundle)) {
  process.stderr.write('kubelet-sim: not built yet; run `npm run build` first\n');
  process.exit(1);
}
require(bundle);
