#!/usr/bin/env node
// Committed launcher: npm ci links only bins whose target exists, and dist/ appears with the build.
const bundle = require('node:path').join(__dirname, '..', 'dist', 'main.js');
const hint = 'fpga-device-plugin: not built yet; run `npx nx run @kdp/plugin-fpga:build` first\n';
if (require('node:fs').existsSync(bundle)) require(bundle);
else process.exitCode = (process.stderr.write(hint), 1);
