import { jsonPatch } from './json-patch';
import { strategicMergePatch } from './strategic-merge-patch';

const pod = {
  metadata: { name: 'p', finalizers: ['a'] },
  spec: {
    containers: [
      { name: 'a', image: 'x', env: [{ name: 'A', value: '1' }] },
      { name: 'b', image: 'y' },
    ],
    tolerations: [{ key: 'k', operator: 'Exists' }],
  },
};

describe('strategicMergePatch', () => {
  it('merges containers and env by name and replaces atomic lists', () => {
    expect(
      strategicMergePatch('pods', pod, {
        spec: {
          containers: [{ name: 'b', image: 'z', env: [{ name: 'B', value: '2' }] }],
          tolerations: [{ key: 'j', operator: 'Exists' }],
        },
      }),
    ).toEqual({
      metadata: pod.metadata,
      spec: {
        containers: [
          { name: 'a', image: 'x', env: [{ name: 'A', value: '1' }] },
          { name: 'b', image: 'z', env: [{ name: 'B', value: '2' }] },
        ],
        tolerations: [{ key: 'j', operator: 'Exists' }],
      },
    });
  });

  it('acts on $patch, $setElementOrder, $deleteFromPrimitiveList and $retainKeys', () => {
    const patched = strategicMergePatch('pods', pod, {
      metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] },
      spec: {
        $retainKeys: ['containers'],
        '$setElementOrder/containers': [{ name: 'b' }, { name: 'c' }, { name: 'a' }],
        containers: [
          { name: 'c', image: 'w' },
          { name: 'a', $patch: 'delete' },
        ],
      },
    });
    expect(patched).toEqual({
      metadata: { name: 'p', finalizers: [] },
      spec: {
        containers: [
          { name: 'b', image: 'y' },
          { name: 'c', image: 'w' },
        ],
      },
    });
    expect(strategicMergePatch('pods', pod, { spec: { $patch: 'replace', nodeName: 'n' } })).toEqual({
      metadata: pod.metadata,
      spec: { nodeName: 'n' },
    });
  });

  it('treats resource.k8s.io lists as atomic and null as a deletion', () => {
    const claim = { spec: { devices: { requests: [{ name: 'a' }, { name: 'b' }] } }, status: { x: 1 } };
    expect(
      strategicMergePatch('resourceclaims', claim, {
        spec: { devices: { requests: [{ name: 'c' }] } },
        status: null,
      }),
    ).toEqual({
      spec: { devices: { requests: [{ name: 'c' }] } },
    });
    expect(() => strategicMergePatch('pods', pod, [])).toThrow(
      'a strategic merge patch must be a JSON object',
    );
  });
});

describe('jsonPatch', () => {
  it('adds, removes, replaces, moves, copies and tests', () => {
    const out = jsonPatch(pod, [
      { op: 'add', path: '/metadata/labels', value: { 'a/b': 'c' } },
      { op: 'replace', path: '/metadata/labels/a~1b', value: 'd' },
      { op: 'add', path: '/spec/containers/-', value: { name: 'c', image: 'w' } },
      { op: 'remove', path: '/spec/containers/0' },
      { op: 'copy', from: '/spec/containers/0/image', path: '/spec/nodeName' },
      { op: 'move', from: '/spec/tolerations', path: '/spec/t' },
      { op: 'test', path: '/spec/nodeName', value: 'y' },
    ]);
    expect(out).toEqual({
      metadata: { name: 'p', finalizers: ['a'], labels: { 'a/b': 'd' } },
      spec: {
        containers: [
          { name: 'b', image: 'y' },
          { name: 'c', image: 'w' },
        ],
        nodeName: 'y',
        t: [{ key: 'k', operator: 'Exists' }],
      },
    });
    expect(pod.spec.containers).toHaveLength(2);
  });

  it('refuses a failed test, a missing path and an unknown op', () => {
    expect(() => jsonPatch(pod, [{ op: 'test', path: '/metadata/name', value: 'q' }])).toThrow(
      'testing value /metadata/name failed',
    );
    expect(() => jsonPatch(pod, [{ op: 'remove', path: '/spec/nope' }])).toThrow('doc is missing key');
    expect(() => jsonPatch(pod, [{ op: 'remove', path: '/spec/containers/5' }])).toThrow(
      'Unable to access invalid index: 5',
    );
    expect(() => jsonPatch(pod, [{ op: 'frob', path: '/a' }])).toThrow('Unexpected kind: frob');
    expect(() => jsonPatch(pod, {})).toThrow('a JSON patch must be a list of operations');
  });
});
