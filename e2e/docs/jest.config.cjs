// nx.json sends this project's jest --json results to reports/jest/e2e/docs.json; jest does not create the folder.
require('node:fs').mkdirSync(require('node:path').join(__dirname, '../../reports/jest/e2e'), {
  recursive: true,
});

module.exports = {
  // Shared settings live in tools/; a config file's path is no code dependency on the tools project.
  // nx-ignore-next-line
  ...require('../../tools/jest/jest.preset.cjs'),
  displayName: 'e2e-docs',
};
