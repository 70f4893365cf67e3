#!/usr/bin/env node
// The import-graph check CI runs after the tests (`npm test`):
//   1. no import circles inside any package's sources (packages/*/src, specs included; `import type` and
//      `export … from` count as edges, as they do for a reader);
//   2. no more than MAX_UNUSED exports, summed over every package entry point, that nothing outside the package
//      uses: the plugins, kdp-device-plugins, the demo, deploy, e2e, examples/ and the packages' README snippets
//      (the author guide's are type-checked) are the consumers. An export is
//      used when another package imports it by name, or when a type-level part of a used export names it (the
//      options type of a used factory, an event type in a used union): those stay exported, so the public
//      declarations never refer to a type their reader cannot name.
// It lists every circle and every unused export by name, and exits 1 when either limit is passed. (A type that a
// used export names but no entry point exports is TypeDoc's check: e2e/docs builds the reference without warnings.)
//
//   node tools/ci/check-imports.mjs            the check (prints a table of exports per entry point)
//   node tools/ci/check-imports.mjs --json     the same facts as JSON (for before/after comparisons)
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const MAX_UNUSED = 10;
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SOURCE = /\.(ts|mts|cts|mjs|cjs|js)$/;

/** Every source file git knows (tracked, or untracked and not ignored), repository-relative. */
function sourceFiles() {
  const out = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  return out
    .split('\0')
    .filter(
      (file) =>
        (SOURCE.test(file) || /^(packages|examples)\/[^/]+\/README\.md$/.test(file)) &&
        !file.includes('node_modules/') &&
        existsSync(join(ROOT, file)),
    );
}

/** The TypeScript of a Markdown file's ```ts blocks (the author guide's snippets are type-checked by e2e/docs). */
const snippetsOf = (markdown) =>
  [...markdown.matchAll(/^```ts\n([\s\S]*?)^```/gm)].map((match) => match[1]).join('\n');

/** Module specifiers a file imports or re-exports, with the names taken (`*` for all of them). */
function importsOf(file) {
  const raw = readFileSync(join(ROOT, file), 'utf8');
  const text = file.endsWith('.md') ? snippetsOf(raw) : raw;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const found = [];
  const visit = (node) => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      found.push({ specifier: node.moduleSpecifier.text, names: namesOf(node) });
    } else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === 'require')) &&
      node.arguments.length === 1 &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      found.push({ specifier: node.arguments[0].text, names: ['*'] });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function namesOf(node) {
  if (ts.isExportDeclaration(node)) {
    if (node.exportClause === undefined || ts.isNamespaceExport(node.exportClause)) return ['*'];
    return node.exportClause.elements.map((element) => (element.propertyName ?? element.name).text);
  }
  const clause = node.importClause;
  if (clause === undefined) return [];
  const names = clause.name !== undefined ? ['default'] : [];
  const bindings = clause.namedBindings;
  if (bindings === undefined) return names;
  if (ts.isNamespaceImport(bindings)) return ['*'];
  return [...names, ...bindings.elements.map((element) => (element.propertyName ?? element.name).text)];
}

/** The package folder a file belongs to (`packages/core`), or undefined outside packages/. */
const packageOf = (file) => /^packages\/[^/]+/.exec(file)?.[0];

/** Resolves a relative specifier to a known file. */
function resolveRelative(from, specifier, known) {
  const base = join(dirname(from), specifier);
  const stem = base.replace(/\.(js|mjs|cjs)$/, '');
  const candidates = [base, `${stem}.ts`, `${stem}.mts`, `${stem}.cts`, `${base}.ts`, join(base, 'index.ts')];
  return candidates.find((candidate) => known.has(candidate));
}

/** Strongly connected components of more than one file (or a file importing itself): Tarjan. */
function circles(graph) {
  let index = 0;
  const stack = [];
  const state = new Map();
  const found = [];
  const connect = (node) => {
    const entry = { index, low: index, onStack: true };
    index += 1;
    state.set(node, entry);
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      const seen = state.get(next);
      if (seen === undefined) {
        connect(next);
        entry.low = Math.min(entry.low, state.get(next).low);
      } else if (seen.onStack) {
        entry.low = Math.min(entry.low, seen.index);
      }
    }
    if (entry.low !== entry.index) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      state.get(member).onStack = false;
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? new Set()).has(node)) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!state.has(node)) connect(node);
  return found;
}

/** Each package entry point (`@kdp/core/plugin`) with its source file, from package.json `exports`. */
function entryPoints() {
  const entries = [];
  for (const name of readdirSync(join(ROOT, 'packages'))) {
    const manifest = join(ROOT, 'packages', name, 'package.json');
    if (!existsSync(manifest)) continue;
    const pkg = JSON.parse(readFileSync(manifest, 'utf8'));
    for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
      const source = typeof target === 'object' ? target['@kdp/source'] : undefined;
      if (source === undefined) continue;
      entries.push({
        specifier: subpath === '.' ? pkg.name : `${pkg.name}/${subpath.replace(/^\.\//, '')}`,
        packageDir: `packages/${name}`,
        file: join('packages', name, source),
      });
    }
  }
  return entries;
}

/**
 * The names each entry point exports, as the type checker sees them (`export *` followed); marks in `used` every
 * export that a type position of a used export names, whichever entry point exports it.
 */
function exportedNames(entries, used) {
  const program = ts.createProgram(
    entries.map((entry) => join(ROOT, entry.file)),
    {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      customConditions: ['@kdp/source'],
      target: ts.ScriptTarget.ES2022,
      allowJs: false,
      noEmit: true,
      skipLibCheck: true,
      types: [],
    },
  );
  const checker = program.getTypeChecker();
  const target = (symbol) =>
    symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  const exportsOf = new Map();
  const owners = new Map(); // declared symbol -> [{ specifier, name }]
  for (const entry of entries) {
    const source = program.getSourceFile(join(ROOT, entry.file));
    const moduleSymbol = source === undefined ? undefined : checker.getSymbolAtLocation(source);
    const exports = moduleSymbol === undefined ? [] : checker.getExportsOfModule(moduleSymbol);
    exportsOf.set(entry.specifier, exports);
    for (const symbol of exports) {
      const key = target(symbol);
      if (!owners.has(key)) owners.set(key, []);
      owners.get(key).push({ specifier: entry.specifier, name: symbol.getName() });
    }
  }
  const queue = entries.flatMap((entry) => {
    const taken = used.get(entry.specifier);
    return exportsOf.get(entry.specifier).filter((symbol) => taken.has(symbol.getName()) || taken.has('*'));
  });
  const seen = new Set();
  // Names reachable from a used export's declarations through type positions (bodies are not API).
  while (queue.length > 0) {
    const symbol = target(queue.pop());
    if (seen.has(symbol)) continue;
    seen.add(symbol);
    for (const declaration of symbol.declarations ?? []) {
      const visit = (node) => {
        if (ts.isBlock(node) && node.parent !== undefined && ts.isFunctionLike(node.parent)) return;
        let name;
        if (ts.isTypeReferenceNode(node)) name = node.typeName;
        else if (ts.isExpressionWithTypeArguments(node)) name = node.expression;
        else if (ts.isTypeQueryNode(node)) name = node.exprName;
        const referenced = name === undefined ? undefined : checker.getSymbolAtLocation(name);
        const found = referenced === undefined ? undefined : owners.get(target(referenced));
        for (const owner of found ?? []) {
          used.get(owner.specifier).add(owner.name);
          queue.push(referenced);
        }
        ts.forEachChild(node, visit);
      };
      visit(declaration);
    }
  }
  const names = (specifier) =>
    exportsOf
      .get(specifier)
      .map((s) => s.getName())
      .sort();
  return {
    exported: new Map(entries.map((entry) => [entry.specifier, names(entry.specifier)])),
  };
}

function main() {
  const json = process.argv.includes('--json');
  const files = sourceFiles();
  const known = new Set(files);
  const graph = new Map();
  const entries = entryPoints();
  const bySpecifier = new Map(entries.map((entry) => [entry.specifier, entry]));
  const used = new Map(entries.map((entry) => [entry.specifier, new Set()]));
  for (const file of files) {
    const pkg = packageOf(file);
    for (const { specifier, names } of importsOf(file)) {
      if (specifier.startsWith('.')) {
        if (pkg === undefined || !file.startsWith(`${pkg}/src/`)) continue;
        const target = resolveRelative(file, specifier, known);
        if (target === undefined || !target.startsWith(`${pkg}/src/`)) continue;
        if (!graph.has(file)) graph.set(file, new Set());
        graph.get(file).add(target);
        continue;
      }
      const entry = bySpecifier.get(specifier);
      if (entry === undefined || pkg === entry.packageDir) continue;
      for (const name of names) used.get(specifier).add(name);
    }
  }
  const found = circles(graph);
  const { exported } = exportedNames(entries, used);
  const table = entries.map((entry) => {
    const names = exported.get(entry.specifier) ?? [];
    const taken = used.get(entry.specifier);
    const unused = taken.has('*') ? [] : names.filter((name) => !taken.has(name));
    return { entry: entry.specifier, exports: names.length, unused };
  });
  const unusedTotal = table.reduce((sum, row) => sum + row.unused.length, 0);
  if (json) {
    process.stdout.write(`${JSON.stringify({ circles: found, entries: table }, null, 2)}\n`);
  } else {
    process.stdout.write('entry point                     exports  unused outside its package\n');
    for (const row of table)
      process.stdout.write(
        `${row.entry.padEnd(30)} ${String(row.exports).padStart(7)}  ${row.unused.length}${row.unused.length > 0 ? `: ${row.unused.join(', ')}` : ''}\n`,
      );
    for (const component of found)
      process.stdout.write(`import circle: ${component.map((file) => relative('.', file)).join(' ↔ ')}\n`);
    process.stdout.write(
      `${found.length} import circles (limit 0), ${unusedTotal} unused exports (limit ${MAX_UNUSED})\n`,
    );
  }
  if (found.length > 0 || unusedTotal > MAX_UNUSED) process.exit(1);
}

main();
