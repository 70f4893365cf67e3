import { discoverDocumentProblems } from './discover-document-problems';

const device = (fields: Record<string, unknown> = {}) => ({
  id: 'dev0',
  health: 'Healthy',
  numaNodes: [0],
  deviceSpecs: [{ containerPath: '/dev/x', hostPath: '/dev/x', permissions: 'rw' }],
  mounts: [],
  ...fields,
});
const doc = (devices: unknown[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    resources: [{ resourceName: 'example.com/x', devices }],
    excluded: [],
    warnings: [],
    ...extra,
  });

describe('discoverDocumentProblems', () => {
  it('returns the devices and diagnostics of a well-formed document', () => {
    const text = doc([device(), device({ id: 'dev1', health: 'Unhealthy', numaNodes: [] })], {
      excluded: [{ path: '/sys/bus/pci/devices/0000:3b:00.0', reason: 'no driver' }],
      warnings: ['numa_node unreadable'],
    });
    expect(discoverDocumentProblems(text)).toEqual({
      ok: true,
      devices: [
        { resourceName: 'example.com/x', id: 'dev0', health: 'Healthy' },
        { resourceName: 'example.com/x', id: 'dev1', health: 'Unhealthy' },
      ],
      diagnostics: ['excluded /sys/bus/pci/devices/0000:3b:00.0: no driver', 'warning numa_node unreadable'],
    });
  });

  it.each([
    ['not JSON', '{"resources": [', /stdout is not one JSON document/],
    ['an empty ID', doc([device({ id: '' })]), /empty or missing id/],
    ['a control character in an ID', doc([device({ id: 'a\nb' })]), /holds control characters/],
    ['an ID twice', doc([device(), device()]), /id dev0 listed twice/],
    ['health in lower case', doc([device({ health: 'healthy' })]), /health "healthy" is neither/],
    [
      'a negative NUMA node',
      doc([device({ numaNodes: [-1] })]),
      /NUMA node -1 is not a non-negative integer/,
    ],
    [
      'a relative host path',
      doc([device({ deviceSpecs: [{ hostPath: 'dev/x' }] })]),
      /is not an absolute path/,
    ],
    [
      'an exclusion without a reason',
      doc([], { excluded: [{ path: '/sys/x', reason: '' }] }),
      /lacks a path or a reason/,
    ],
    ['no warnings array', doc([], { warnings: undefined }), /warnings is not an array/],
  ])('refuses %s', (_what, text, problem) => {
    const check = discoverDocumentProblems(text);
    expect(check.ok).toBe(false);
    expect(check.ok ? [] : check.problems.join('\n')).toMatch(problem);
  });

  it('refuses a host path that holds the root prefix', () => {
    const text = doc([
      device({ mounts: [{ containerPath: '/x', hostPath: '/tmp/kdp-sys-1/dev/x', readOnly: true }] }),
    ]);
    expect(discoverDocumentProblems(text, { forbiddenPathPart: '/tmp/kdp-sys-1' })).toEqual({
      ok: false,
      problems: [
        'example.com/x device 0.mounts[0].hostPath /tmp/kdp-sys-1/dev/x holds the root prefix /tmp/kdp-sys-1',
      ],
    });
  });
});
