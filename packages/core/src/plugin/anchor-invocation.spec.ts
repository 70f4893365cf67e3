import { anchorInvocation } from './anchor-invocation';

describe('anchorInvocation', () => {
  const anchors = ['nvidia-device-plugin'];
  it('serves when invoked by an anchor name without arguments', () => {
    expect(anchorInvocation(anchors, ['/nodejs/bin/node', '/usr/bin/nvidia-device-plugin'])).toEqual({
      argv: ['serve'],
      invokedAs: 'nvidia-device-plugin',
    });
  });
  it('says the anchor it was invoked as, and leaves the command to the command line', () => {
    expect(anchorInvocation(anchors, ['node', '/usr/bin/nvidia-device-plugin', '--help'])).toEqual({
      invokedAs: 'nvidia-device-plugin',
    });
    expect(anchorInvocation(anchors, ['node', '/app/main.js'])).toEqual({});
    expect(anchorInvocation(anchors, ['node', '/usr/bin/gpu-device-plugin'])).toEqual({});
  });
});
