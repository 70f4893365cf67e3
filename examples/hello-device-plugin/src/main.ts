// hello-device-plugin: advertises one `example.com/hello` device per regular file in --dir. The device ID is
// the file name; it is Healthy when the content, trimmed, is "ok" or "healthy", and Unhealthy otherwise.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ContainerAllocation, PluginDevice } from '@kdp/core';
import { definePlugin, flag, runPlugin } from '@kdp/core/plugin';

/** One scan of the directory (dot files are skipped); a file that cannot be read is an unhealthy device. */
async function scan(dir: string): Promise<PluginDevice[]> {
  const files = (await readdir(dir, { withFileTypes: true })).filter((f) => f.isFile() && f.name[0] !== '.');
  const read = async (id: string) => (await readFile(join(dir, id), 'utf8').catch(() => '')).trim();
  return Promise.all(
    files.map(async ({ name: id }) => {
      const text = await read(id);
      const ok = ['ok', 'healthy'].includes(text);
      return { id, health: ok ? 'Healthy' : 'Unhealthy', ...(ok ? {} : { problem: `says "${text}"` }) };
    }),
  );
}

/** Allocate: the container gets the IDs in HELLO_DEVICES and each device's file, read-only, under /hello. */
function allocate(dir: string, devices: readonly PluginDevice[]): ContainerAllocation {
  const mount = (id: string) => ({ hostPath: join(dir, id), containerPath: `/hello/${id}`, readOnly: true });
  return {
    envs: { HELLO_DEVICES: devices.map((d) => d.id).join(',') },
    mounts: devices.map((d) => mount(d.id)),
  };
}

const dir = flag.path({ description: 'device files', valueName: 'DIR', default: '/var/run/hello-devices' });

const helloPlugin = definePlugin({
  name: 'hello',
  binary: 'hello-device-plugin',
  title: 'Hello device plugin',
  version: '0.1.0',
  flags: { dir },
  // Scan at start, on every change in the directory (inotify), and every 10 s in case one was missed.
  scan: {
    watch: ({ flags }) => ({ paths: [flags.dir] }),
    interval: '10s',
    run: ({ flags }) => scan(flags.dir),
  },
  resources: (devices, { flags }) => ({
    resources: [{ name: 'example.com/hello', devices, allocate: (c) => allocate(flags.dir, c.devices) }],
  }),
});

// The runtime owns the rest: CLI (serve, discover, --help), signals, registration, metrics, exit codes.
void runPlugin(helloPlugin);
