import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { parse } from 'yaml';
import { asKubeObject, type KubeObject } from './kube-object';
import { kubeToolPath } from './kube-tool-path';
import { parseYamlDocuments } from './parse-yaml-documents';

const rendered = new Map<string, readonly KubeObject[]>();

/** Whether the kustomization file in dir declares a `kind: Component` (which kubectl does not render alone). */
export function isComponent(dir: string): boolean {
  const file = parse(readFileSync(join(dir, 'kustomization.yaml'), 'utf8')) as { kind?: string } | null;
  return file?.kind === 'Component';
}

function kubectlKustomize(dir: string): string {
  return execFileSync(kubeToolPath('kubectl'), ['kustomize', dir], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * The objects `kubectl kustomize dir` renders with the pinned kubectl (rendered once per test file, a fresh copy
 * each call). A
 * Component is rendered through a temporary kustomization that lists `host` (a kustomization directory) as its
 * resource and the component under `components`.
 */
export function kustomizeBuild(dir: string, host?: string): KubeObject[] {
  const key = `${resolve(dir)}\0${host === undefined ? '' : resolve(host)}`;
  const cached = rendered.get(key);
  if (cached !== undefined) return structuredClone(cached) as KubeObject[];
  let text: string;
  if (host === undefined) text = kubectlKustomize(dir);
  else {
    const temp = mkdtempSync(join(tmpdir(), 'kdp-component-'));
    try {
      writeFileSync(
        join(temp, 'kustomization.yaml'),
        `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ${relative(temp, resolve(host))}\ncomponents:\n  - ${relative(temp, resolve(dir))}\n`,
      );
      text = kubectlKustomize(temp);
    } finally {
      rmSync(temp, { recursive: true, force: true });
    }
  }
  const objects = parseYamlDocuments(text, `kubectl kustomize ${dir}`).map((value) =>
    asKubeObject(value, dir),
  );
  rendered.set(key, objects);
  return structuredClone(objects) as KubeObject[];
}
