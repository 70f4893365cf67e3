module.exports = {
  ...require('../../tools/jest/jest.preset.cjs'),
  displayName: '@kdp/plugin-infiniband',
  // The pinned kubectl: KDP_KUBECTL in every test (the DRA playground specs drive it).
  // nx-ignore-next-line
  globalSetup: '<rootDir>/../../tools/kube-tools/jest-global-setup.cjs',
};
