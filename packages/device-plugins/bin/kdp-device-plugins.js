#!/usr/bin/env node
// Committed entry point, so that `npm ci` links the binary into node_modules/.bin before dist/ is built.
const bundle = require('node:path').join(__dirname, '..', 'dist', 'main.js');
if (require('node:fs').existsSync(bundle)) require(bundle);
else process.exitCode = (process.stderr.write('not built yet; run `npm run build` first\n'), 1);
