// jest writes --outputFile into reports/jest/e2e/, a folder it does not create itself (the preset creates only
// reports/jest/packages).
require('node:fs').mkdirSync(require('node:path').join(__dirname, '../../reports/jest/e2e'), {
  recursive: true,
});

module.exports = {
  // Shared settings live in tools/; a config file's path is no code dependency on the tools project.
  // nx-ignore-next-line
  ...require('../../tools/jest/jest.preset.cjs'),
  displayName: 'e2e-chaos',
  // Real plugin processes against a simulated kubelet on a shared 2-core machine; every wait has its own bound.
  testTimeout: 180_000,
};
