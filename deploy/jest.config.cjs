module.exports = {
  // Shared settings live in tools/; a config file's path is no code dependency on the tools project.
  // nx-ignore-next-line
  ...require('../tools/jest/jest.preset.cjs'),
  displayName: 'deploy',
  // The pinned kubectl (kustomize) and helm: KDP_KUBECTL and KDP_HELM in every test.
  // nx-ignore-next-line
  globalSetup: '<rootDir>/../tools/kube-tools/jest-global-setup.cjs',
};
