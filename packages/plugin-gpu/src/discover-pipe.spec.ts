import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DiscoverDocument } from '@kdp/core/plugin';
import { bundleEntry, type EntryBundle } from '@kdp/kubelet-sim/testing';
import type { SysfsFixture } from '@kdp/topology/testing';
import { rootFlags } from './testing/fixture-devices';
import { buildNvidiaServer } from './testing/nvidia-server';

jest.setTimeout(120_000);

let bundle: EntryBundle;
let fixture: SysfsFixture;
beforeAll(() => {
  bundle = bundleEntry(join(__dirname, 'main.ts'), { external: ['koffi'] });
  fixture = buildNvidiaServer(32);
}, 60_000);
afterAll(() => {
  bundle.remove();
  fixture.remove();
});

/**
 * Runs the binary with stdout into a pipe whose reader starts a second late and then takes one chunk per
 * millisecond; resolves with what it read and the exit code.
 */
function runThroughSlowReader(args: readonly string[]): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(process.execPath, [bundle.path, ...args], { stdio: ['ignore', 'pipe', 'ignore'] });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    child.stdout.pause();
    setTimeout(() => child.stdout.resume(), 1);
  });
  child.stdout.pause();
  setTimeout(() => child.stdout.resume(), 1000);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(chunks).toString('utf8') }));
  });
}

describe('discover --output json into a pipe', () => {
  // 32 GPUs, each shared 64 times, with their device nodes: 2,048 devices, a document of several megabytes
  // (64 KiB fill a Linux pipe).
  it('hands a slow reader the whole multi-megabyte document before exiting 0', async () => {
    const config = join(fixture.base, 'replicas.yaml');
    writeFileSync(config, 'nvidia:\n  passDeviceSpecs: true\nsharing:\n  replicas: 64\n');
    const run = await runThroughSlowReader([
      'discover',
      '--output',
      'json',
      ...rootFlags(fixture),
      '--config',
      config,
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout.length).toBeGreaterThan(2 * 1024 * 1024);
    const doc = JSON.parse(run.stdout) as DiscoverDocument;
    expect(doc.resources.map((r) => [r.resourceName, r.devices.length])).toEqual([['nvidia.com/gpu', 2048]]);
  });
});
