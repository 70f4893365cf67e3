// Runs external tools with argument arrays (never a shell) and names the Debian package of a missing one.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** Debian packages that provide the tools the image build uses. */
export const toolPackages = {
  umoci: 'umoci',
  skopeo: 'skopeo',
  'dpkg-deb': 'dpkg',
  tar: 'tar',
  npm: 'npm (or Node.js from nodejs.org)',
  strip: 'binutils',
  'aarch64-linux-gnu-strip': 'binutils-aarch64-linux-gnu',
  'qemu-aarch64-static': 'qemu-user-static',
  'qemu-x86_64-static': 'qemu-user-static',
};

/** A tool is missing: the build stops with exit code 2 and this message. */
export class MissingToolError extends Error {}

/** Runs `command args` and resolves to its output; rejects with the tool's stderr in the message. */
export async function run(command, args, options = {}) {
  try {
    return await execFileAsync(command, args, { maxBuffer: 64 * 1024 * 1024, ...options });
  } catch (error) {
    if (error.code === 'ENOENT') {
      throw new MissingToolError(
        `${command} not found: install it with apt-get install -y ${toolPackages[command] ?? command}`,
      );
    }
    const detail = String(error.stderr ?? '').trim() || error.message;
    throw new Error(`${command} ${args.join(' ')} failed: ${detail}`);
  }
}

/** Whether `command` can be run (looked up on PATH without a shell). */
export async function hasTool(command) {
  try {
    await execFileAsync(command, ['--version']);
    return true;
  } catch (error) {
    return error.code !== 'ENOENT';
  }
}

/** Throws a MissingToolError naming every missing tool of `commands` and the apt-get line that installs them. */
export async function requireTools(commands) {
  const missing = [];
  for (const command of commands) if (!(await hasTool(command))) missing.push(command);
  if (missing.length > 0) {
    const packages = [...new Set(missing.map((command) => toolPackages[command] ?? command))];
    throw new MissingToolError(
      `missing ${missing.join(', ')}: install with apt-get install -y ${packages.join(' ')}`,
    );
  }
}
