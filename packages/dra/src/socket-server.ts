import { chmod, lstat, mkdir, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ServerCredentials, type Server } from '@grpc/grpc-js';
import { isDialable } from '@kdp/base';

/** Binds `server` on `path` (mode 0600, directory 0750), replacing a socket nobody answers on. */
export async function serveOnSocket(server: Server, path: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o750 });
  const existing = await lstat(path).catch(() => undefined);
  if (existing !== undefined) {
    if (!existing.isSocket()) throw new Error(`${path} exists and is not a socket`);
    if (await isDialable(path, 500))
      throw new Error(`${path} is served by another instance (use a pod UID for rolling updates)`);
    await unlink(path);
  }
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`unix://${path}`, ServerCredentials.createInsecure(), (error) =>
      error ? reject(error) : resolve(),
    ),
  );
  await chmod(path, 0o600);
}

/** Shuts `server` down (forced after 2 s) and removes its socket. */
export async function shutdownSocketServer(server: Server, path: string): Promise<void> {
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, 2000);
    timer.unref();
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
  await unlink(path).catch(() => undefined);
}
