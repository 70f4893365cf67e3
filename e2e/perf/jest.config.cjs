// jest writes --outputFile into reports/jest/e2e/, a folder it does not create itself (the preset creates only
// reports/jest/packages).
require('node:fs').mkdirSync(require('node:path').join(__dirname, '../../reports/jest/e2e'), {
  recursive: true,
});

module.exports = {
  // Shared settings live in tools/; a config file's path is no code dependency on the tools project.
  // nx-ignore-next-line
  ...require('../../tools/jest/jest.preset.cjs'),
  displayName: 'e2e-perf',
  // Each benchmark runs as its own process in short mode, and up to twice more while a figure is out of bounds.
  testTimeout: 300_000,
};
