import { bareRequires } from './bare-requires';
import { checkPackageFiles, manifestTargets } from './package-files';

const manifest = {
  main: './dist/index.js',
  types: './dist/index.d.ts',
  bin: { tool: './bin/tool.js' },
  exports: {
    '.': { '@kdp/source': './src/index.ts', types: './dist/index.d.ts', default: './dist/index.js' },
    './testing': {
      '@kdp/source': './src/testing/index.ts',
      types: './dist/testing/index.d.ts',
      default: './dist/testing/index.js',
    },
    './package.json': './package.json',
  },
};
const good = [
  'LICENSE',
  'README.md',
  'bin/tool.js',
  'dist/index.d.ts',
  'dist/index.js',
  'dist/testing/index.d.ts',
  'dist/testing/index.js',
  'package.json',
];

describe('checkPackageFiles', () => {
  it('accepts built code, declarations, bins, README, LICENSE and package.json', () => {
    expect(checkPackageFiles(good, manifest)).toEqual({ unexpected: [], missing: [] });
  });

  it.each([
    'src/index.ts',
    'dist/index.spec.js',
    'dist/index.spec.d.ts',
    'dist/sample.fixture.js',
    'dist/index.js.map',
    'dist/bench/bench.js',
    'tsconfig.json',
    'tsconfig.lib.json',
    'jest.config.cjs',
    'project.json',
    'bench/run.mjs',
    'testdata/golden/a.bin',
    'bin/other.js',
  ])('rejects %s', (file) => {
    expect(checkPackageFiles([...good, file], manifest).unexpected).toEqual([file]);
  });

  it('names every missing entry point, the README and the LICENSE', () => {
    const files = good.filter(
      (f) => !['LICENSE', 'README.md', 'dist/testing/index.js', 'bin/tool.js'].includes(f),
    );
    expect(checkPackageFiles(files, manifest).missing.sort()).toEqual(
      ['LICENSE', 'README.md', 'bin/tool.js', 'dist/testing/index.js'].sort(),
    );
  });

  it('skips the @kdp/source condition and reads string bins', () => {
    expect(
      manifestTargets({ main: 'dist/index.js', bin: './bin/x.js', exports: { '@kdp/source': './src/a.ts' } }),
    ).toEqual(['dist/index.js', 'bin/x.js']);
  });
});

describe('bareRequires', () => {
  it('keeps package names, drops relative paths and built-ins', () => {
    const code = [
      'const a = require("@grpc/grpc-js");',
      "const b = require('@bufbuild/protobuf/wire');",
      'const c = require("./local");',
      'const d = require("node:fs");',
      'const e = require("path");',
      'const f = require("zod");',
      'const g = require("zod/v4");',
    ].join('\n');
    expect(bareRequires(code)).toEqual(['@bufbuild/protobuf', '@grpc/grpc-js', 'zod']);
  });
});
