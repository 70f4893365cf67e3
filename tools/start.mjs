#!/usr/bin/env node
// `npm start`: until the plugins and the demo node land, prints the kubelet APIs this workspace speaks
// (every gRPC method path, read from proto/) and what to run next.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const protoRoot = join(root, 'proto');

function protoFiles(dir) {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return protoFiles(path);
      return name.endsWith('.proto') ? [path] : [];
    });
}

console.log('kdp: Kubernetes device plugins in TypeScript\n');
console.log('gRPC methods of the kubelet APIs in proto/ (generated into @kdp/api):');
for (const file of protoFiles(protoRoot)) {
  const text = readFileSync(file, 'utf8');
  const pkg = /^package\s+([\w.]+);/m.exec(text)?.[1] ?? '';
  console.log(`\n  ${relative(root, file)} (package ${pkg})`);
  for (const service of text.matchAll(/service\s+(\w+)\s*\{([\s\S]*?)\n\}/g)) {
    for (const rpc of service[2].matchAll(
      /rpc\s+(\w+)\s*\(\s*(\w+)\s*\)\s*returns\s*\(\s*(stream\s+)?(\w+)/g,
    )) {
      const streaming = rpc[3] ? ' (server stream)' : '';
      console.log(`    /${pkg}.${service[1]}/${rpc[1]}  ${rpc[2]} -> ${rpc[4]}${streaming}`);
    }
  }
}
console.log(
  '\nThe demo node (kubelet simulator and the five plugins) is not built yet; `npm test` runs the tests.',
);
