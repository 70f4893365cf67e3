#!/usr/bin/env node
// Sums jest's --json results of every Nx project that has a `test` target into the one line the CI reads:
// `N passed, N failed`. A project whose results file is missing (jest crashed, or the task never ran) and
// a test file that failed to run at all (syntax error, failing import) each count as one failure, so a
// broken suite can never make the count look better. Exit code 1 when anything failed.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const nx = join(root, 'node_modules/nx/bin/nx.js');

function projectsWithTests() {
  const names = JSON.parse(
    execFileSync(process.execPath, [nx, 'show', 'projects', '--withTarget', 'test', '--json'], {
      cwd: root,
      encoding: 'utf8',
    }),
  );
  return names.sort().map((name) => {
    const project = JSON.parse(
      execFileSync(process.execPath, [nx, 'show', 'project', name, '--json'], {
        cwd: root,
        encoding: 'utf8',
      }),
    );
    return { name, results: join(root, 'reports/jest', `${project.root}.json`) };
  });
}

let passed = 0;
let failed = 0;
for (const { name, results } of projectsWithTests()) {
  if (!existsSync(results)) {
    console.error(`${name}: no jest results at ${results}; counted as 1 failure`);
    failed += 1;
    continue;
  }
  const report = JSON.parse(readFileSync(results, 'utf8'));
  const brokenFiles = report.numRuntimeErrorTestSuites ?? 0;
  if (brokenFiles > 0) console.error(`${name}: ${brokenFiles} test file(s) failed to run`);
  console.error(`${name}: ${report.numPassedTests} passed, ${report.numFailedTests} failed`);
  passed += report.numPassedTests;
  failed += report.numFailedTests + brokenFiles;
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
