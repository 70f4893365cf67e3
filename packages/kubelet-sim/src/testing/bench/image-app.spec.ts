import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
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
    writeFileSync(join(dir, 'image-app', 'bundle.cache'), 'not a brotli stream');
    expect(run(main, imageProcessEnv(WORKSPACE))).toBe(
      'ran bundle.js serve --x object\ncodeCache rejected\n',
    );
    rmSync(join(dir, 'image-app', 'bundle.cache'));
    expect(run(main, imageProcessEnv(WORKSPACE))).toBe('ran bundle.js serve --x object\ncodeCache absent\n');
  });

  /** A bundle whose module initialization runs `init`, a function of 400 statements, or only defines it. */
  const initBundle = (runsInit: boolean, header = ''): string => {
    const body = Array.from(
      { length: 400 },
      (_, i) => `  globalThis.v${i} = (globalThis.v${i} ?? 0) + ${i};`,
    );
    const file = join(dir, runsInit ? 'runs.js' : 'defines.js');
    const call = runsInit ? 'init();' : 'void init;';
    writeFileSync(file, `#!/usr/bin/env node\n${header}function init() {\n${body.join('\n')}\n}\n${call}\n`);
    return file;
  };
  const cacheBytes = (main: string): number =>
    brotliDecompressSync(readFileSync(join(main, '..', 'bundle.cache'))).length;

  it('takes the cache after the module initialization (`--version`): it holds the bytecode of what that ran', () => {
    const defines = imageApp(WORKSPACE, initBundle(false), process.execPath);
    const definedOnly = cacheBytes(defines);
    rmSync(join(dir, 'image-app'), { recursive: true });
    const runs = imageApp(WORKSPACE, initBundle(true), process.execPath);
    // 400 statements of bytecode: 28 kB on Node 20, against 0.5 kB for the whole cache without it.
    expect(cacheBytes(runs) - definedOnly).toBeGreaterThan(8_000);
    expect(run(runs, imageProcessEnv(WORKSPACE))).toBe('codeCache accepted\n');
  });

  it("is accepted when the bundle's first import sets V8 options (@kdp/core/start), which the image starts without", () => {
    const header = "require('node:v8').setFlagsFromString('--no-turbofan');\n";
    const main = imageApp(WORKSPACE, initBundle(true, header), process.execPath);
    expect(run(main, imageProcessEnv(WORKSPACE))).toBe('codeCache accepted\n');
  });

  it('fails the build when the bundle cannot initialize (`--version` exits non-zero)', () => {
    const file = join(dir, 'broken.js');
    writeFileSync(file, '#!/usr/bin/env node\nprocess.exitCode = 3;\n');
    const script = join(WORKSPACE, 'tools', 'image', 'image-app.mjs');
    const args = [script, '--node', process.execPath, file, join(dir, 'out')];
    const result = spawnSync(process.execPath, args, { encoding: 'utf8' });
    expect({ status: result.status, stderr: result.stderr }).toEqual({
      status: 1,
      stderr: expect.stringMatching(/bundle\.js --version exited with 3; no cache written\n$/),
    });
  });
});
