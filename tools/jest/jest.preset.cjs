// Shared jest settings for every package: TypeScript through ts-jest
// (transpile only; `typecheck` targets run tsc), workspace packages resolved
// to their sources through the `@kdp/source` export condition.
module.exports = {
  testEnvironment: 'node',
  testEnvironmentOptions: {
    customExportConditions: ['@kdp/source', 'node', 'require', 'default'],
  },
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.spec.json' }],
  },
};

// `nx run-many -t test` passes --json --outputFile=../../reports/jest/packages/<name>.json (nx.json);
// jest does not create that folder itself, and .ci/run sums those files into its closing line.
require('node:fs').mkdirSync(require('node:path').join(__dirname, '../../reports/jest/packages'), {
  recursive: true,
});
