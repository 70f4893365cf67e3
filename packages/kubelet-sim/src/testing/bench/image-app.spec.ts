import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { imageApp } from './image-app';
import { imageProcessEnv } from './read-image-env';

const WORKSPACE = join(__dirname, '..', '..', '..', '..', '..');
/** Prints, as the process exits, what /app/main.js left of the code cache. */
const STATUS = "process.on('exit', () => console.log('codeCache', globalThis[Symbol.for('kdp.codeCache')]));";

describe('imageApp', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'kdp-image-app-'));
    writeFileSync(join(dir, 'status.cjs'), STATUS);
    writeFileSync(
      join(dir, 'main.js'),
      "#!/usr/bin/env node\nconst { basename } = require('node:path');\n" +
        "console.log('ran', basename(__filename), process.argv.slice(2).join(' '), typeof module.exports);\n",
    );
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const run = (main: string, env: Record<string, string>): string =>
    execFileSync(process.execPath, ['-r', join(dir, 'status.cjs'), main, 'serve', '--x'], {
      env,
      encoding: 'utf8',
    });

  it("writes the image's /app beside the bundle: its main.js runs the bundle with the code cache V8 accepts", () => {
    const main = imageApp(WORKSPACE, join(dir, 'main.js'), process.execPath);
    expect(main).toBe(join(dir, 'image-app', 'main.js'));
    expect(readFileSync(join(dir, 'image-app', 'bundle.js'), 'utf8')).not.toContain('#!');
    expect(run(main, imageProcessEnv(WORKSPACE))).toBe(
      'ran bundle.js serve --x object\ncodeCache accepted\n',
    );
  });

  it('runs the bundle all the same when V8 refuses the cache (other V8 options), and says so', () => {
    const main = imageApp(WORKSPACE, join(dir, 'main.js'), process.execPath);
    const env = { ...imageProcessEnv(WORKSPACE), NODE_OPTIONS: '--max-old-space-size=99' };
    expect(run(main, env)).toBe('ran bundle.js serve --x object\ncodeCache rejected\n');
    rmSync(join(dir, 'image-app', 'bundle.cache'));
    expect(run(main, imageProcessEnv(WORKSPACE))).toBe('ran bundle.js serve --x object\ncodeCache absent\n');
  });
});
