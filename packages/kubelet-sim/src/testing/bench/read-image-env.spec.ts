import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { imageProcessEnv, plainProcessEnv, readImageEnv } from './read-image-env';

const WORKSPACE = resolve(__dirname, '../../../../..');

describe('readImageEnv / imageProcessEnv / plainProcessEnv', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'kdp-image-env-'));
    mkdirSync(join(root, 'tools', 'image'), { recursive: true });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const runtime = (content: unknown): void =>
    writeFileSync(join(root, 'tools', 'image', 'node-runtime.json'), JSON.stringify(content));

  const host: NodeJS.ProcessEnv = {
    PATH: '/usr/local/bin:/usr/bin',
    HOME: '/root',
    NODE_OPTIONS: '--max-old-space-size=64',
    NODE_EXTRA_CA_CERTS: '/etc/ssl/certs/ca-certificates.crt',
    UV_THREADPOOL_SIZE: '1',
  };

  it("a plugin gets the image's variables and the host's PATH, and nothing else of the host's", () => {
    runtime({ env: { NODE_ENV: 'production', NODE_OPTIONS: '--expose-gc' } });
    expect(imageProcessEnv(root, host)).toEqual({
      PATH: '/usr/local/bin:/usr/bin',
      NODE_ENV: 'production',
      NODE_OPTIONS: '--expose-gc',
    });
    expect(imageProcessEnv(root, {})).toEqual({ NODE_ENV: 'production', NODE_OPTIONS: '--expose-gc' });
  });

  it('a baseline with no image gets the host PATH only', () => {
    expect(plainProcessEnv(host)).toEqual({ PATH: '/usr/local/bin:/usr/bin' });
  });

  it('refuses an env that is not names to strings, naming the file', () => {
    runtime({ env: { NODE_OPTIONS: 1 } });
    expect(() => readImageEnv(root)).toThrow(`${join(root, 'tools', 'image', 'node-runtime.json')}: "env"`);
  });

  it("reads the workspace's own node-runtime.json: the images' NODE_OPTIONS", () => {
    expect(imageProcessEnv(WORKSPACE, host)['NODE_OPTIONS']).toContain('--use-openssl-ca');
  });
});
