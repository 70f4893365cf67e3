module.exports = {
  ...require('../../tools/jest/jest.preset.cjs'),
  displayName: '@kdp/plugin-infiniband',
};
