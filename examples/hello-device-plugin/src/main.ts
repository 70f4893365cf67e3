// hello-device-plugin: advertises one `example.com/hello` device per regular file in --dir. The device ID is
// the file name; it is Healthy when the file's content, trimmed, is "ok" or "healthy", and Unhealthy otherwise.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as kdp from '@kdp/core';

const resourceName = 'example.com/hello';

/** One scan of the directory (dot files are skipped); a file that cannot be read is an unhealthy device. */
async function scan(dir: string): Promise<kdp.PluginDevice[]> {
  const files = (await readdir(dir, { withFileTypes: true })).filter((f) => f.isFile() && f.name[0] !== '.');
  const read = async (id: string) => (await readFile(join(dir, id), 'utf8').catch(() => '')).trim();
  return Promise.all(
    files.map(async ({ name: id }) => {
      const health = ['ok', 'healthy'].includes(await read(id)) ? 'Healthy' : 'Unhealthy';
      return { id, health } as const;
    }),
  );
}

/** Runs until SIGTERM/SIGINT fire ctx.signal; serveDevicePlugin then ends the streams and unlinks the socket. */
async function serve(ctx: kdp.ServeContext<unknown>): Promise<void> {
  const dir = String(ctx.extra.dir);
  // Scan at start, on every change in the directory (inotify), and every 10 s in case one was missed.
  const triggers = [kdp.createFsWatchTrigger([dir])];
  const source = kdp.createPollingSource({ scan: () => scan(dir), intervalMs: 10_000, triggers });
  // Allocate: the container gets the IDs in HELLO_DEVICES and each device's file, read-only, under /hello.
  const mount = (id: string) => ({ hostPath: join(dir, id), containerPath: `/hello/${id}`, readOnly: true });
  const allocate = ({ devices }: kdp.AllocateContext<unknown>) => ({
    envs: { HELLO_DEVICES: devices.map((d) => d.id).join(',') },
    mounts: devices.map((d) => mount(d.id)),
  });
  const resources = [{ name: resourceName, source, allocate }];
  // runPluginCli aborts ctx.signal on SIGTERM/SIGINT, so the plugin must not handle the signals itself.
  const options = { devicePluginDir: ctx.flags.devicePluginDir, logger: ctx.logger, handleSignals: false };
  const plugin = kdp.createDevicePlugin({ ...options, resources });
  await kdp.serveDevicePlugin(ctx, plugin);
}

void kdp.runPluginCli({
  name: 'Hello device plugin',
  binary: 'hello-device-plugin',
  version: '0.1.0',
  argv: process.argv.slice(2),
  extraFlags: { dir: { type: 'string', description: 'device files', default: '/var/run/hello-devices' } },
  discover: async ({ extra }) => ({ resources: [{ resourceName, devices: await scan(String(extra.dir)) }] }),
  serve,
  exit: (code) => (process.exitCode = code),
});
