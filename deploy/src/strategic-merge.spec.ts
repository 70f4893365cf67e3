import { strategicMerge } from './strategic-merge';

describe('strategicMerge', () => {
  const daemonSet = {
    spec: {
      template: {
        spec: {
          containers: [
            {
              name: 'plugin',
              image: 'a:1',
              args: ['serve', '--x'],
              volumeMounts: [{ name: 'v', mountPath: '/v' }],
            },
          ],
          volumes: [{ name: 'v', hostPath: { path: '/v' } }],
          tolerations: [{ key: 'a', operator: 'Exists' }],
        },
      },
    },
  };

  it('merges containers by name and volume mounts by mountPath, and replaces plain lists', () => {
    const out = strategicMerge(daemonSet, {
      spec: {
        template: {
          spec: {
            containers: [{ name: 'plugin', args: ['serve'], volumeMounts: [{ name: 'w', mountPath: '/w' }] }],
            tolerations: [{ key: 'b', operator: 'Exists' }],
          },
        },
      },
    }) as typeof daemonSet;
    const spec = out.spec.template.spec;
    expect(spec.containers).toEqual([
      {
        name: 'plugin',
        image: 'a:1',
        args: ['serve'],
        volumeMounts: [
          { name: 'v', mountPath: '/v' },
          { name: 'w', mountPath: '/w' },
        ],
      },
    ]);
    expect(spec.tolerations).toEqual([{ key: 'b', operator: 'Exists' }]);
    expect(spec.volumes).toEqual(daemonSet.spec.template.spec.volumes);
  });

  it('deletes a key patched with null and replaces scalars and strings', () => {
    expect(
      strategicMerge(
        { data: { 'config.yaml': 'a: 1\n' }, keep: 1, drop: 2 },
        { data: { 'config.yaml': 'b: 2\n' }, drop: null },
      ),
    ).toEqual({
      data: { 'config.yaml': 'b: 2\n' },
      keep: 1,
    });
  });

  it('appends containers of a new name and leaves its inputs untouched', () => {
    const out = strategicMerge(daemonSet, {
      spec: { template: { spec: { containers: [{ name: 'sidecar', image: 's' }] } } },
    }) as typeof daemonSet;
    expect(out.spec.template.spec.containers.map((c) => c.name)).toEqual(['plugin', 'sidecar']);
    expect(daemonSet.spec.template.spec.containers).toHaveLength(1);
  });
});
