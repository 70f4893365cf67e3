import { createApiFaults } from './api-faults';

describe('createApiFaults', () => {
  it('refuses writes with 409 Conflict only during a storm, and counts them', async () => {
    const faults = createApiFaults();
    expect(
      faults.refuse({ method: 'POST', path: '/apis/resource.k8s.io/v1/resourceslices' }),
    ).toBeUndefined();
    faults.startConflicts();
    const seen = faults.refusedMoreThan(0, 10_000);
    expect(faults.refuse({ method: 'GET', path: '/api/v1/pods' })).toBeUndefined();
    const refused = faults.refuse({ method: 'PUT', path: '/apis/resource.k8s.io/v1/resourceslices/a' });
    expect(refused?.code).toBe(409);
    expect(refused?.status.reason).toBe('Conflict');
    await expect(seen).resolves.toBe(true);
    faults.endConflicts();
    expect(faults.refuse({ method: 'DELETE', path: '/x' })).toBeUndefined();
    expect(faults.refused).toBe(1);
    await expect(faults.refusedMoreThan(1, 1)).resolves.toBe(false);
  });
});
