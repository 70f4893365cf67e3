// `nx run-many -t test` writes this project's jest --json to reports/jest/e2e/images.json (nx.json);
// jest does not create that folder itself.
require('node:fs').mkdirSync(require('node:path').join(__dirname, '../../reports/jest/e2e'), {
  recursive: true,
});
module.exports = {
  // Shared settings live in tools/; a config file's path is no code dependency on the tools project.
  // nx-ignore-next-line
  ...require('../../tools/jest/jest.preset.cjs'),
  displayName: 'e2e-images',
  // Building five images on a shared 2-core machine takes minutes; every wait inside has its own bound.
  testTimeout: 300_000,
};
