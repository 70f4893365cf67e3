import { anchorInvocation } from './anchor-invocation';

describe('anchorInvocation', () => {
  const anchors = ['nvidia-device-plugin'];
  it('serves when invoked by an anchor name without arguments', () => {
    expect(anchorInvocation(anchors, ['/nodejs/bin/node', '/usr/bin/nvidia-device-plugin'])).toEqual({
      argv: ['serve'],
    });
  });
  it('leaves any other invocation to the command line', () => {
    expect(anchorInvocation(anchors, ['node', '/usr/bin/nvidia-device-plugin', '--help'])).toEqual({});
    expect(anchorInvocation(anchors, ['node', '/app/main.js'])).toEqual({});
    expect(anchorInvocation(anchors, ['node', '/usr/bin/gpu-device-plugin'])).toEqual({});
  });
});
