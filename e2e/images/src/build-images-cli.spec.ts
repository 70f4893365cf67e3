import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const repo = resolve(__dirname, '../../..');
const builder = join(repo, 'tools/image/build-images.mjs');

/** Runs the image builder with `args`; usage errors are found before any tool or download is needed. */
async function build(args: string[]): Promise<{ code: number; stderr: string; stdout: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [builder, ...args], { cwd: repo });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('build-images command line', () => {
  it.each([
    [['gpu', '--tag', 'abc'], '--tag only names the tag --push pushes'],
    [['gpu', '--push', 'ghcr.io/kdp-dev'], '--push takes a docker://REGISTRY/PREFIX reference'],
    [
      ['gpu', '--push', 'docker://ghcr.io/kdp-dev/gpu-device-plugin:abc'],
      '--push docker://ghcr.io/kdp-dev/gpu-device-plugin:abc: give the repository prefix only; the tag comes from --tag',
    ],
    [['gpu', '--push', 'docker://ghcr.io/kdp-dev', '--tag', 'a/b'], '--tag "a/b" is not a valid image tag'],
    [['gpu', '--push', 'docker://ghcr.io/kdp-dev', '--tag=-x'], '--tag "-x" is not a valid image tag'],
    [['tpu'], 'unknown plugin tpu'],
    [['gpu', '--arch', 'riscv64'], 'unknown arch riscv64'],
  ])('%j exits 2: %s', async (args, message) => {
    const { code, stderr } = await build(args);
    expect(code).toBe(2);
    expect(stderr).toContain(`build-images: ${message}\nusage: build-images `);
  });

  it('accepts a registry with a port and a tag, and prints the usage with --help', async () => {
    const { code, stdout } = await build([
      'gpu',
      '--push',
      'docker://localhost:5000/kdp',
      '--tag',
      'v1',
      '--help',
    ]);
    expect(code).toBe(0);
    expect(stdout).toContain('[--push docker://REGISTRY/PREFIX [--tag TAG]]');
  });
});
