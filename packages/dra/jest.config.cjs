module.exports = {
  // Shared settings live in tools/; a config file's path is no code dependency on the tools project.
  // nx-ignore-next-line
  ...require('../../tools/jest/jest.preset.cjs'),
  displayName: '@kdp/dra',
};
