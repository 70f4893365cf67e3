import { fieldSetOf, serverSideApply } from './server-side-apply';

describe('serverSideApply', () => {
  const applied = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', labels: { a: '1', b: '2' } },
    spec: { containers: [{ name: 'c', image: 'x' }] },
  };

  it('records the applied fields, keyed lists by key', () => {
    expect(fieldSetOf('pods', applied)).toEqual({
      'f:metadata': { 'f:labels': { 'f:a': {}, 'f:b': {} } },
      'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:name': {}, 'f:image': {} } } },
    });
  });

  it('creates, then removes what the manager stops applying and keeps what others set', () => {
    const created = serverSideApply('pods', undefined, applied, 'kubectl', 'T1');
    expect(created.metadata['managedFields']).toEqual([
      expect.objectContaining({ manager: 'kubectl', operation: 'Apply', time: 'T1', fieldsType: 'FieldsV1' }),
    ]);
    const live = {
      ...created,
      metadata: { ...created.metadata, annotations: { other: 'x' } },
      status: { phase: 'Running' },
    };
    const next = serverSideApply(
      'pods',
      live,
      {
        ...applied,
        metadata: { name: 'p', labels: { a: '1' } },
        spec: { containers: [{ name: 'd', image: 'y' }] },
      },
      'kubectl',
      'T2',
    );
    expect(next.metadata.labels).toEqual({ a: '1' });
    expect(next.metadata['annotations']).toEqual({ other: 'x' });
    expect(next['spec']).toEqual({ containers: [{ name: 'd', image: 'y' }] });
    expect(next['status']).toEqual({ phase: 'Running' });
    expect(next.metadata['managedFields']).toHaveLength(1);
  });
});
