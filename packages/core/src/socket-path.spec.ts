import { socketFileName, socketNamePrefix, socketPath } from './socket-path';

/** An Intel FPGA AFU resource, as the FPGA plugin names them: too long for the kubelet's directory. */
const AFU = 'fpga.intel.com/af-695.d84.aVKNtusxV3qMNmj5-qCB9thCTcSko8QT-J5DNoP5BAs';
const KUBELET_DIR = '/var/lib/kubelet/device-plugins';

describe('socket paths', () => {
  it('sanitizes the resource and appends the instance', () => {
    expect(socketFileName('nvidia.com/gpu', 'ab12')).toBe('nvidia.com_gpu-ab12.sock');
    expect(socketPath(KUBELET_DIR, 'nvidia.com/gpu', 'ab12')).toBe(`${KUBELET_DIR}/nvidia.com_gpu-ab12.sock`);
  });

  it('cuts a resource name that would overflow 107 bytes and ends it in a hash of the whole name', () => {
    expect(Buffer.byteLength(`${KUBELET_DIR}/${socketFileName(AFU, '0123abcd')}`)).toBeGreaterThan(107);
    const path = socketPath(KUBELET_DIR, AFU, '0123abcd');
    expect(Buffer.byteLength(path)).toBe(107);
    expect(path).toMatch(
      /^\/var\/lib\/kubelet\/device-plugins\/fpga\.intel\.com_af-695\.d84\.[\w.-]+_[0-9a-f]{8}-0123abcd\.sock$/,
    );
    // The same for every instance of the resource, and different for another resource sharing the kept part.
    expect(socketNamePrefix(socketPath(KUBELET_DIR, AFU, 'ffff0000'))).toBe(socketNamePrefix(path));
    expect(socketNamePrefix(socketPath(KUBELET_DIR, `${AFU}x`, '0123abcd'))).not.toBe(socketNamePrefix(path));
  });

  it('names the path and its length when even a shortened name does not fit', () => {
    const dir = `/tmp/${'d'.repeat(80)}`;
    expect(() => socketPath(dir, `example.com/${'r'.repeat(40)}`, 'abcd')).toThrow(
      /^socket path \/tmp\/d+\/example\.com_r+-abcd\.sock is 148 bytes long; unix socket paths may have at most 107 bytes/,
    );
  });

  it('gives the shared prefix of a socket name up to its instance ID', () => {
    expect(socketNamePrefix(`${KUBELET_DIR}/nvidia.com_gpu-ab12.sock`)).toBe('nvidia.com_gpu-');
    expect(socketNamePrefix(`${KUBELET_DIR}/fpga.intel.com_af-695-ab12.sock`)).toBe('fpga.intel.com_af-695-');
  });
});
