import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runPluginCommand } from '@kdp/core/testing';
import type { SysfsFixture } from '@kdp/topology/testing';
import { gpuPlugin } from './plugin';
import { rootFlags } from './testing/fixture-devices';
import { buildAmdMachine, buildIntelMachine, buildNvidiaMachine } from './testing/machines';

// The fixtures are what topology's kdp-capture.sh would capture on a real machine: capture each fixture
// (with its placeholders turned into real character devices, as on a host), replay the tarball with
// kdp-replay.sh, and `discover` must give the same document. mknod needs root (CAP_MKNOD).
const scripts = join(__dirname, '../../topology/capture');
const isRoot = process.getuid?.() === 0;

/** `discover --output json` with these root flags, parsed. */
async function discoverJson(roots: readonly string[]): Promise<unknown> {
  const { code, stdout, stderr } = await runPluginCommand(gpuPlugin, [
    'discover',
    ...roots,
    '--output',
    'json',
  ]);
  if (code !== 0) throw new Error(`discover exited ${code}: ${stderr}`);
  return JSON.parse(stdout);
}

/** Replaces every "c MAJOR:MINOR" placeholder under the dev root with a real character device. */
function materialize(dir: string): void {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const info = statSync(path, { throwIfNoEntry: false });
    if (info?.isDirectory()) materialize(path);
    else if (info?.isFile()) {
      const match = /^c (\d+):(\d+)/.exec(readFileSync(path, 'utf8'));
      if (!match) continue;
      rmSync(path);
      execFileSync('mknod', [path, 'c', match[1] as string, match[2] as string]);
    }
  }
}

(isRoot ? describe : describe.skip)('capture → replay round trip (kdp-capture.sh, kdp-replay.sh)', () => {
  const cases: Array<[string, () => SysfsFixture]> = [
    ['NVIDIA', buildNvidiaMachine],
    ['AMD', buildAmdMachine],
    ['Intel', buildIntelMachine],
  ];
  it.each(cases)(
    '%s: discover on the replayed capture equals discover on the fixture',
    async (_vendor, build) => {
      const fixture = build();
      const work = mkdtempSync(join(tmpdir(), 'kdp-cap-'));
      try {
        const expected = await discoverJson(rootFlags(fixture));
        materialize(fixture.devRoot);
        expect(await discoverJson(rootFlags(fixture))).toEqual(expected);
        const archive = join(work, 'capture.tar.gz');
        execFileSync(
          'sh',
          [
            join(scripts, 'kdp-capture.sh'),
            '-o',
            archive,
            '--sysfs-root',
            fixture.root,
            '--proc-root',
            fixture.procRoot,
            '--dev-root',
            fixture.devRoot,
          ],
          { stdio: 'ignore' },
        );
        const replay = join(work, 'm');
        execFileSync('sh', [join(scripts, 'kdp-replay.sh'), archive, replay], { stdio: 'ignore' });
        const replayed = await discoverJson([
          ...['--sysfs-root', join(replay, 'sys'), '--proc-root', join(replay, 'proc')],
          ...['--dev-root', join(replay, 'dev')],
        ]);
        expect(replayed).toEqual(expected);
      } finally {
        fixture.remove();
        rmSync(work, { recursive: true, force: true });
      }
    },
    60_000,
  );
});
