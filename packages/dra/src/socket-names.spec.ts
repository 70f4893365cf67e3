import { draSocketPath, registrationSocketPath } from './socket-names';

describe('socket names', () => {
  it('names the sockets as the kubelet plugin helper does', () => {
    expect(registrationSocketPath('/var/lib/kubelet/plugins_registry', 'gpu.kdp.dev')).toBe(
      '/var/lib/kubelet/plugins_registry/gpu.kdp.dev-reg.sock',
    );
    expect(registrationSocketPath('/r', 'gpu.kdp.dev', 'uid-1')).toBe('/r/gpu.kdp.dev-uid-1-reg.sock');
    expect(draSocketPath('/var/lib/kubelet/plugins', 'gpu.kdp.dev')).toBe(
      '/var/lib/kubelet/plugins/gpu.kdp.dev/dra.sock',
    );
    expect(draSocketPath('/p', 'gpu.kdp.dev', 'uid-1')).toBe('/p/gpu.kdp.dev/dra-uid-1.sock');
  });

  it('hashes a name that would exceed 107 bytes, keeping it unique per pod and within the limit', () => {
    const driver = `${'a'.repeat(50)}.kdp.dev`;
    const uid = '6b1a0e4c-0d1e-4f7a-9c1b-2e3f4a5b6c7d';
    const one = registrationSocketPath('/var/lib/kubelet/plugins_registry', driver, uid);
    const two = registrationSocketPath('/var/lib/kubelet/plugins_registry', driver, uid.replace('6b', '7c'));
    for (const path of [one, two]) {
      expect(Buffer.byteLength(path)).toBeLessThanOrEqual(107);
      expect(path).toMatch(/^\/var\/lib\/kubelet\/plugins_registry\/a+-[0-9a-f]{16}-reg\.sock$/);
    }
    expect(one).not.toBe(two);
    expect(
      Buffer.byteLength(draSocketPath('/var/lib/kubelet/plugins', 'gpu.kdp.dev', uid.repeat(3))),
    ).toBeLessThanOrEqual(107);
  });

  it('throws naming the path when even the short form cannot fit', () => {
    expect(() => draSocketPath(`/${'d'.repeat(100)}`, 'gpu.kdp.dev')).toThrow(
      /bytes long; unix socket paths/,
    );
  });
});
