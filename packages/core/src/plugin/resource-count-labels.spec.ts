import { resourceCountLabels } from './resource-count-labels';

describe('resourceCountLabels', () => {
  it('counts the devices of each resource', () => {
    const device = (id: string) => ({ id, health: 'Healthy' as const });
    expect(
      resourceCountLabels({
        resources: [
          { name: 'example.com/a', devices: [device('1'), device('2')] },
          { name: 'example.com/b', devices: [] },
        ],
      }),
    ).toEqual({ 'example.com/a.count': '2', 'example.com/b.count': '0' });
  });
});
