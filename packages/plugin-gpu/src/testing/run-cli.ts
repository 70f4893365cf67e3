import type { DiscoverDocument } from '@kdp/core';
import type { SysfsFixture } from '@kdp/topology/testing';
import { runGpuCli } from '../gpu-cli';

/** Runs the CLI in-process; returns the exit code and what it wrote. */
export async function runCli(
  argv: readonly string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runGpuCli({
    argv,
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { code, stdout, stderr };
}

/** The root flags of a fixture. */
export function rootFlags(fixture: SysfsFixture): string[] {
  return ['--sysfs-root', fixture.root, '--proc-root', fixture.procRoot, '--dev-root', fixture.devRoot];
}

/** `discover --output json` on a fixture, parsed. */
export async function discoverJson(
  fixture: SysfsFixture,
  extra: readonly string[] = [],
): Promise<DiscoverDocument> {
  const { code, stdout, stderr } = await runCli([
    'discover',
    ...rootFlags(fixture),
    '--output',
    'json',
    ...extra,
  ]);
  if (code !== 0) throw new Error(`discover exited ${code}: ${stderr}`);
  return JSON.parse(stdout) as DiscoverDocument;
}
