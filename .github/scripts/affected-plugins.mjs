#!/usr/bin/env node
// Reads `nx show projects --affected --json` (a JSON list of project names) on stdin and prints the affected
// projects that ship a container image (the five plugins, kdp-device-plugins and the device monitor) as a JSON
// list for a GitHub Actions matrix, e.g. [{"name":"gpu","project":"@kdp/plugin-gpu"}]; `name` is the image's
// name in tools/image (`npx nx run <project>:image` builds it). With --all it ignores stdin and prints every one
// (a push whose base commit is unknown, a manual run).
// Usage: npx nx show projects --affected --base=B --head=H --json | node .github/scripts/affected-plugins.mjs
import { readFileSync } from 'node:fs';

const images = [
  ...['gpu', 'sriov', 'infiniband', 'usb', 'fpga'].map((name) => ({ name, project: `@kdp/plugin-${name}` })),
  // All five plugins in one process: affected whenever any plugin (or what they stand on) is.
  { name: 'device-plugins', project: '@kdp/device-plugins' },
  { name: 'monitor', project: '@kdp/monitor' },
];

function main() {
  if (process.argv.includes('--all')) return images;
  const text = readFileSync(0, 'utf8');
  let projects;
  try {
    projects = JSON.parse(text);
  } catch {
    throw new Error(`expected the JSON list of nx show projects --json on stdin, got: ${text.slice(0, 200)}`);
  }
  if (!Array.isArray(projects) || projects.some((name) => typeof name !== 'string')) {
    throw new Error('expected a JSON list of project names on stdin');
  }
  return images.filter((image) => projects.includes(image.project));
}

try {
  process.stdout.write(`${JSON.stringify(main())}\n`);
} catch (error) {
  process.stderr.write(`affected-plugins: ${error.message}\n`);
  process.exit(2);
}
