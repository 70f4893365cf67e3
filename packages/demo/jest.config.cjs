module.exports = {
  // Shared settings live in tools/; a config file's path is no code dependency on the tools project.
  // nx-ignore-next-line
  ...require('../../tools/jest/jest.preset.cjs'),
  displayName: '@kdp/demo',
  // The pinned kubectl: KDP_KUBECTL for the spec that points it at the demo's DRA playground.
  // nx-ignore-next-line
  globalSetup: '<rootDir>/../../tools/kube-tools/jest-global-setup.cjs',
};
