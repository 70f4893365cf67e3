import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asKubeObject, type KubeObject } from './kube-object';
import { kubeToolPath } from './kube-tool-path';
import { parseYamlDocuments } from './parse-yaml-documents';

/** Runs the pinned helm with args; returns stdout, or throws with helm's stderr in the message. */
export function runHelm(args: readonly string[]): string {
  return execFileSync(kubeToolPath('helm'), args, {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** `helm template` of a chart with these values (written to a temp file), in a namespace, as objects. */
export function helmTemplate(chart: string, values: object, namespace = 'kdp-system'): KubeObject[] {
  const dir = mkdtempSync(join(tmpdir(), 'kdp-values-'));
  try {
    const file = join(dir, 'values.json');
    writeFileSync(file, JSON.stringify(values));
    const text = runHelm(['template', 'kdp', chart, '--namespace', namespace, '--values', file]);
    return parseYamlDocuments(text, `helm template ${chart}`).map((value) => asKubeObject(value, chart));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
