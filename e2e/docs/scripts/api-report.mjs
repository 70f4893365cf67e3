#!/usr/bin/env node
// Writes the API-surface report (API Extractor's `.api.md`) of every entry point of the published libraries
// into packages/<x>/api-report/, so a change to a public signature shows up in review as a diff of that file.
// `npm run api-report` runs it; `--out DIR` writes the reports under DIR/<x>/ instead (the staleness test
// compares those with the committed ones).
//
// Entry points come from each package.json `exports` map (its `@kdp/source` condition names the source
// file), so a new subpath export gets a report without touching this script. The declarations are emitted
// by one tsc run over all the libraries into a temp folder: each library resolves the others to their
// sources (the workspace `@kdp/source` condition), so nothing needs to be built first; API Extractor then
// maps `@kdp/*` imports to those temp declarations.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const require = createRequire(import.meta.url);

/** The libraries published to npm (plugins, kdp-device-plugins, the monitor and the demo are applications). */
export const LIBRARIES = ['api', 'base', 'core', 'topology', 'kubelet-sim', 'dra'];

/** The report file base name of one entry point: `core` for `.`, `kubelet-sim-testing` for `./testing`. */
function reportName(pkg, subpath) {
  return subpath === '.' ? pkg : `${pkg}-${subpath.replace(/^\.\//, '').replaceAll('/', '-')}`;
}

/** Every `{ pkg, name, subpath, source }` entry point, read from the libraries' `exports` maps. */
export function entryPoints() {
  return LIBRARIES.flatMap((pkg) => {
    const manifest = JSON.parse(readFileSync(join(root, 'packages', pkg, 'package.json'), 'utf8'));
    return Object.entries(manifest.exports ?? {})
      .filter(([, target]) => typeof target === 'object' && typeof target['@kdp/source'] === 'string')
      .map(([subpath, target]) => ({
        pkg,
        packageName: manifest.name,
        subpath,
        name: reportName(pkg, subpath),
        source: join('packages', pkg, target['@kdp/source']),
      }));
  });
}

/** Emits declarations of every entry point (and what they import) under `dir`/<pkg>/src/…. */
function emitDeclarations(entries, dir) {
  const tsconfig = join(dir, 'tsconfig.json');
  writeFileSync(
    tsconfig,
    JSON.stringify({
      extends: join(root, 'tsconfig.base.json'),
      compilerOptions: {
        rootDir: join(root, 'packages'),
        outDir: join(dir, 'dts'),
        declaration: true,
        emitDeclarationOnly: true,
        declarationMap: false,
        sourceMap: false,
        types: ['node'],
        typeRoots: [join(root, 'node_modules/@types')],
      },
      files: entries.map((e) => join(root, e.source)),
    }),
  );
  const tsc = require.resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', tsconfig], { cwd: root, stdio: 'inherit' });
}

/** The declaration file tsc emitted for a source file, under `dts`. */
function declarationOf(dts, source) {
  return join(dts, relative('packages', source)).replace(/\.ts$/, '.d.ts');
}

/**
 * Installs a copy of every library's declarations as `node_modules/@kdp/<pkg>` next to `dts`, with an exports
 * map of declarations only, so API Extractor sees `@kdp/*` imports as other packages (external references,
 * like `zod`) rather than inlining their types as forgotten exports.
 */
function linkDeclarationPackages(entries, dts) {
  for (const pkg of LIBRARIES) {
    const target = join(dts, '..', 'node_modules', '@kdp', pkg);
    cpSync(join(dts, pkg), target, { recursive: true });
    const mine = entries.filter((e) => e.pkg === pkg);
    const exportsMap = Object.fromEntries(
      mine.map((e) => [e.subpath, { types: `./${relative(join(dts, pkg), declarationOf(dts, e.source))}` }]),
    );
    writeFileSync(
      join(target, 'package.json'),
      JSON.stringify({ name: mine[0].packageName, exports: exportsMap }),
    );
  }
}

/** Runs API Extractor on one entry point; returns its error and warning messages. */
function extract(Extractor, ExtractorConfig, entry, dts, reportFolder, tempFolder) {
  const config = ExtractorConfig.prepare({
    configObject: {
      projectFolder: join(root, 'packages', entry.pkg),
      mainEntryPointFilePath: declarationOf(dts, entry.source),
      compiler: {
        overrideTsconfig: {
          compilerOptions: {
            module: 'nodenext',
            moduleResolution: 'nodenext',
            target: 'es2022',
            lib: ['es2023'],
            types: ['node'],
            typeRoots: [join(root, 'node_modules/@types')],
            strict: true,
            skipLibCheck: true,
          },
          files: [declarationOf(dts, entry.source)],
        },
      },
      apiReport: {
        enabled: true,
        reportFileName: entry.name,
        reportFolder,
        reportTempFolder: tempFolder,
        // Types reachable from the API but not exported (ts-proto's MessageFns, …) are part of its shape too.
        includeForgottenExports: true,
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      newlineKind: 'lf',
      messages: {
        compilerMessageReporting: { default: { logLevel: 'warning' } },
        extractorMessageReporting: {
          default: { logLevel: 'warning', addToApiReportFile: true },
          // The libraries do not tag release levels (@public/@beta): everything exported is public.
          'ae-missing-release-tag': { logLevel: 'none', addToApiReportFile: false },
          // Generated messages carry no comments; TypeDoc's output is where documentation is reviewed.
          'ae-undocumented': { logLevel: 'none', addToApiReportFile: false },
        },
        // TypeDoc checks the comments (npm run docs); TSDoc's stricter tag set would only add noise here.
        tsdocMessageReporting: { default: { logLevel: 'none', addToApiReportFile: false } },
      },
    },
    configObjectFullPath: undefined,
    packageJsonFullPath: join(root, 'packages', entry.pkg, 'package.json'),
  });
  const problems = [];
  Extractor.invoke(config, {
    localBuild: true,
    showVerboseMessages: false,
    messageCallback: (message) => {
      // console-api-report-created / -changed: expected, the whole point is rewriting the report.
      const expected = message.messageId.startsWith('console-api-report-');
      if (!expected && (message.logLevel === 'error' || message.logLevel === 'warning')) {
        problems.push(`${entry.name}: ${message.formatMessageWithLocation(root)}`);
      }
      message.handled = true;
    },
  });
  return problems;
}

/**
 * Rewrites a report the way `nx format` would, so the committed reports pass the format check as they are. The
 * closing "Warnings were encountered" list names the emitted declarations by absolute path, inside the temp
 * folder `work`: those become relative to it (`dts/core/src/…d.ts:line:column`), so a report never changes with
 * the folder's random name or the checkout's location.
 */
async function formatReport(file, work) {
  const prettier = await import('prettier');
  const options = (await prettier.resolveConfig(join(root, 'package.json'))) ?? {};
  const text = readFileSync(file, 'utf8').replaceAll(`${work}${sep}`, '');
  writeFileSync(file, await prettier.format(text, { ...options, filepath: file }));
}

/** Writes every report into `out` (default: each package's api-report/); returns the files written. */
export async function writeApiReports(out) {
  const { Extractor, ExtractorConfig } = require('@microsoft/api-extractor');
  // Inside the repository (dist/ is ignored) so that the declarations' imports of zod, pino, @grpc/grpc-js …
  // resolve to the root node_modules.
  mkdirSync(join(root, 'dist'), { recursive: true });
  const work = mkdtempSync(join(root, 'dist', '.api-report-'));
  try {
    const entries = entryPoints();
    emitDeclarations(entries, work);
    linkDeclarationPackages(entries, join(work, 'dts'));
    const problems = [];
    const written = [];
    for (const entry of entries) {
      const reportFolder =
        out === undefined ? join(root, 'packages', entry.pkg, 'api-report') : join(resolve(out), entry.pkg);
      mkdirSync(reportFolder, { recursive: true });
      problems.push(
        ...extract(Extractor, ExtractorConfig, entry, join(work, 'dts'), reportFolder, join(work, 'temp')),
      );
      const report = join(reportFolder, `${entry.name}.api.md`);
      await formatReport(report, work);
      written.push(report);
    }
    if (problems.length > 0) {
      throw new Error(`API Extractor reported ${problems.length} problem(s):\n${problems.join('\n')}`);
    }
    return written;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { out: { type: 'string' } } });
  try {
    for (const file of await writeApiReports(values.out)) console.log(relative(process.cwd(), file));
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  }
}
