import { socketFileName, socketPath } from './socket-path';

describe('socket paths', () => {
  it('sanitizes the resource and appends the instance', () => {
    expect(socketFileName('nvidia.com/gpu', 'ab12')).toBe('nvidia.com_gpu-ab12.sock');
    expect(socketPath('/var/lib/kubelet/device-plugins', 'nvidia.com/gpu', 'ab12')).toBe(
      '/var/lib/kubelet/device-plugins/nvidia.com_gpu-ab12.sock',
    );
  });

  it('names the path and its length when it exceeds 107 bytes', () => {
    const dir = `/tmp/${'d'.repeat(60)}`;
    expect(() => socketPath(dir, `example.com/${'r'.repeat(40)}`, 'abcd')).toThrow(
      /^socket path \/tmp\/d+\/example\.com_r+-abcd\.sock is 128 bytes long; unix socket paths may have at most 107 bytes/,
    );
  });
});
