#!/usr/bin/env node
// Sums jest's --json results of every Nx project that has a `test` target into the one line the CI reads:
// `N passed, N failed`. A project whose results file is missing (jest crashed, or the task never ran) and
// a test file that failed to run at all (syntax error, failing import) each count as one failure, so a
// broken suite can never make the count look better. Exit code 1 when anything failed.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Every Nx project with a `test` target, and where its jest --json results land (see nx.json). */
function projectsWithTests() {
  const dir = mkdtempSync(join(tmpdir(), 'kdp-graph-'));
  try {
    const file = join(dir, 'graph.json');
    execFileSync(join(root, 'node_modules/.bin/nx'), ['graph', `--file=${file}`], {
      cwd: root,
      stdio: 'ignore',
    });
    const { nodes } = JSON.parse(readFileSync(file, 'utf8')).graph;
    return Object.entries(nodes)
      .filter(([, node]) => 'test' in node.data.targets)
      .map(([name, node]) => ({ name, results: join(root, 'reports/jest', `${node.data.root}.json`) }))
      .sort((a, b) => a.name.localeCompare(b.name));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let passed = 0;
let failed = 0;
for (const { name, results } of projectsWithTests()) {
  if (!existsSync(results)) {
    console.log(`${name}: no jest results at ${results}; counted as 1 failure`);
    failed += 1;
    continue;
  }
  const report = JSON.parse(readFileSync(results, 'utf8'));
  const brokenFiles = report.numRuntimeErrorTestSuites ?? 0;
  if (brokenFiles > 0) console.log(`${name}: ${brokenFiles} test file(s) failed to run`);
  console.log(`${name}: ${report.numPassedTests} tests passed, ${report.numFailedTests} tests failed`);
  passed += report.numPassedTests;
  failed += report.numFailedTests + brokenFiles;
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
