import { join } from 'node:path';
import ts from 'typescript';
import { deployDir } from './deploy-dir';

/** One object to check: its value and the TypeScript interface of its kind. */
export interface TypedObject {
  readonly label: string;
  readonly value: unknown;
  readonly typeModule: string;
  readonly typeName: string;
}

/**
 * Finds fields the Kubernetes API does not know (e.g. `readOnlyRootFilesytem`), which the OpenAPI schema allows
 * but `kubectl apply` (strict field validation) rejects: each object becomes an object literal typed with its
 * kind's interface from kubernetes-models, and TypeScript's excess-property and type checks report every
 * unknown or mistyped field. Returns one message per problem, naming the object.
 */
export function checkFieldNames(objects: readonly TypedObject[]): string[] {
  const file = join(deployDir, 'src', '__field-names-check__.ts');
  const imports = [...new Set(objects.map((o) => `import type { ${o.typeName} } from '${o.typeModule}';`))];
  const body = objects.map(
    (o, i) => `export const o${i}: ${o.typeName} = ${JSON.stringify(o.value, null, 1)};`,
  );
  const source = [...imports, ...body].join('\n');
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language, ...rest) =>
    name === file ? ts.createSourceFile(name, source, language) : getSourceFile(name, language, ...rest);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name === file || fileExists(name);
  const program = ts.createProgram([file], options, host);
  const lineOf = (position: number): number =>
    ts.getLineAndCharacterOfPosition(program.getSourceFile(file) as ts.SourceFile, position).line;
  const firstLine = imports.length;
  const starts = objects.map((_, i) =>
    source.split('\n').findIndex((line) => line.startsWith(`export const o${i}:`)),
  );
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ');
    if (diagnostic.file?.fileName !== file || diagnostic.start === undefined) return message;
    const line = lineOf(diagnostic.start);
    const index = starts.reduce((found, start, i) => (start <= line && start >= firstLine ? i : found), -1);
    return `${objects[index]?.label ?? '?'}: ${message}`;
  });
}
