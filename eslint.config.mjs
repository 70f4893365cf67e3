// One flat ESLint config for the whole workspace. Module boundaries are enforced by tag:
//   type:base     clock, backoff, probe server, logger -> nothing
//   type:api      the generated kubelet APIs           -> nothing
//   type:util     topology (sysfs, NUMA, PCIe, host)   -> api
//   type:core     lifecycle and plugin runtime         -> base, api, util
//   type:testing  kubelet-sim (tests core, so no core) -> base, api
//   type:app      standalone agents (monitor)          -> base, api, util
//   type:dra      DRA kubelet-plugin helper (dra)      -> core, base, api, util
//   type:plugin   one per device family (+ scope:<d>)  -> dra, core, base, api, util; tests/benchmarks also testing
//   type:bundle   kdp-device-plugins (hosts plugins)   -> plugin, dra, core, base, api, util
//   type:tool     tools/: may use anything; nothing may import it
// No plugin can import another plugin: plugins are not among what type:plugin may depend on; only the
// bundle may depend on plugins, and nothing depends on the bundle.
import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier';

const boundaries = (extra) => [
  'error',
  {
    enforceBuildableLibDependency: false,
    allow: [],
    depConstraints: [
      { sourceTag: 'type:base', onlyDependOnLibsWithTags: [] },
      { sourceTag: 'type:api', onlyDependOnLibsWithTags: [] },
      { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:api'] },
      { sourceTag: 'type:core', onlyDependOnLibsWithTags: ['type:base', 'type:api', 'type:util', ...extra] },
      { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:base', 'type:api'] },
      {
        sourceTag: 'type:dra',
        onlyDependOnLibsWithTags: ['type:core', 'type:base', 'type:api', 'type:util', ...extra],
      },
      { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:base', 'type:api', 'type:util', ...extra] },
      {
        sourceTag: 'type:demo',
        onlyDependOnLibsWithTags: ['type:testing', 'type:plugin', 'type:base', 'type:api', 'type:util'],
      },
      {
        sourceTag: 'type:plugin',
        onlyDependOnLibsWithTags: ['type:dra', 'type:core', 'type:base', 'type:api', 'type:util', ...extra],
      },
      {
        sourceTag: 'type:bundle',
        onlyDependOnLibsWithTags: [
          'type:plugin',
          'type:dra',
          'type:core',
          'type:base',
          'type:api',
          'type:util',
          ...extra,
        ],
      },
      { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['*'] },
      { sourceTag: '*', notDependOnLibsWithTags: ['type:tool'] },
    ],
  },
];

export default [
  { ignores: ['**/dist', '**/src/gen', '**/node_modules', 'reports', 'coverage', '.nx'] },
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  ...nx.configs['flat/javascript'],
  {
    files: ['**/*.ts', '**/*.js', '**/*.mjs', '**/*.cjs'],
    rules: {
      '@nx/enforce-module-boundaries': boundaries([]),
      'no-restricted-properties': [
        'error',
        ...['describe', 'it', 'test'].map((object) => ({
          object,
          property: 'only',
          message: 'Focused tests skip the rest of the suite; remove .only.',
        })),
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // No source function longer than a screenful and a half: a longer one is split into named parts (tests are
    // lists of cases and exempt).
    files: ['packages/*/src/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/*.fixture.ts', '**/src/gen/**'],
    rules: { 'max-lines-per-function': ['error', { max: 150, IIFEs: true }] },
  },
  {
    // Tests, their fixtures and helpers, and benchmarks (and nothing else) may drive code with the kubelet simulator.
    files: ['**/*.spec.ts', '**/*.fixture.ts', '**/testing/**/*.ts', '**/bench/**/*.ts'],
    rules: { '@nx/enforce-module-boundaries': boundaries(['type:testing']) },
  },
  {
    // Config files reach shared settings in tools/ by path; they are not part of any package's code.
    files: ['**/jest.config.cjs'],
    rules: { '@nx/enforce-module-boundaries': 'off' },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', __dirname: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  prettier,
];
