import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeKubeconfig } from './write-kubeconfig';

describe('writeKubeconfig', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kubeconfig-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes one current context with the server, CA data and token, mode 0600 even over a file', async () => {
    const path = join(dir, 'config');
    await writeFile(path, 'old', { mode: 0o644 });
    await writeKubeconfig(path, { server: 'https://127.0.0.1:1', token: 't0k', caData: 'PEM', context: 'c' });
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'c',
          cluster: { server: 'https://127.0.0.1:1', 'certificate-authority-data': 'UEVN' },
        },
      ],
      users: [{ name: 'c', user: { token: 't0k' } }],
      contexts: [{ name: 'c', context: { cluster: 'c', user: 'c', namespace: 'default' } }],
      'current-context': 'c',
      preferences: {},
    });
  });

  it('fails when the parent directory is missing', async () => {
    await expect(writeKubeconfig(join(dir, 'no', 'config'), { server: 'http://x' })).rejects.toThrow(
      'ENOENT',
    );
  });
});
