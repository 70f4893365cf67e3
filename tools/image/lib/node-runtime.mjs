// How every image starts Node, beyond its fixed PATH: the environment in tools/image/node-runtime.json
// (NODE_ENV, and the memory settings chosen by `nx run @kdp/device-plugins:bench`). Environment rather than
// entrypoint flags, so that the anchors' binary names, which the kernel runs through /app/main.js's `#!` line,
// get the same settings as the entrypoint. The bench reads the same file.
import { readFileSync } from 'node:fs';

const file = new URL('../node-runtime.json', import.meta.url);

/** `env` of node-runtime.json as `NAME=value` lines, in the file's order; a value not a string is an error. */
export function nodeRuntimeEnv() {
  const { env } = JSON.parse(readFileSync(file, 'utf8'));
  if (typeof env !== 'object' || env === null) throw new Error(`${file.pathname}: no "env" object`);
  return Object.entries(env).map(([name, value]) => {
    if (typeof value !== 'string' || !/^[A-Z_][A-Z0-9_]*$/.test(name))
      throw new Error(`${file.pathname}: env ${name} must be a NAME with a string value`);
    return `${name}=${value}`;
  });
}
