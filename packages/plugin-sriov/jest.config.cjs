module.exports = {
  // Shared settings live in tools/; a config file's path is no code dependency on the tools project.
  // nx-ignore-next-line
  ...require('../../tools/jest/jest.preset.cjs'),
  displayName: '@kdp/plugin-sriov',
  // The pinned kubectl: KDP_KUBECTL in every test (the DRA playground specs drive it).
  // nx-ignore-next-line
  globalSetup: '<rootDir>/../../tools/kube-tools/jest-global-setup.cjs',
};
