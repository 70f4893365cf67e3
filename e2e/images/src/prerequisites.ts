import { execFileSync } from 'node:child_process';

/** The tools the image tests run, with the Debian package of each. */
const tools: ReadonlyArray<readonly [string, string]> = [
  ['umoci', 'umoci'],
  ['skopeo', 'skopeo'],
  ['runc', 'runc'],
  // Runs the arm64 images' Node on an x86-64 host, invoked directly (no binfmt_misc registration needed).
  ['qemu-aarch64-static', 'qemu-user-static'],
  // anchors.spec.ts: lays the fixture's /proc/driver into a container's procfs (bind-into-container.ts).
  ['python3', 'python3'],
];

function hasTool(command: string): boolean {
  try {
    execFileSync(command, ['--version'], { stdio: 'ignore' });
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

/** Why the image tests cannot run here (missing tools, not root), or undefined when they can. */
export function missingPrerequisites(uid: number | undefined = process.getuid?.()): string | undefined {
  const missing = tools.filter(([command]) => !hasTool(command)).map(([, pkg]) => pkg);
  const problems: string[] = [];
  if (missing.length > 0) problems.push(`missing tools: apt-get install -y ${missing.join(' ')}`);
  if (uid !== 0) problems.push('runc needs root (run as root, e.g. in CI)');
  return problems.length > 0 ? problems.join('; ') : undefined;
}
