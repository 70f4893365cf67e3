import { createRegistrationReadiness } from './registration-readiness';

describe('createRegistrationReadiness', () => {
  it('is ready with no resource, and while every known resource is registered', () => {
    const readiness = createRegistrationReadiness();
    expect(readiness.readiness()).toEqual({ ok: true, message: 'ready' });
    readiness.set('example.com/b', true);
    readiness.set('example.com/a', true);
    expect(readiness.readiness().ok).toBe(true);
  });

  it('names the resources not registered, sorted, until they are or are removed', () => {
    const readiness = createRegistrationReadiness();
    readiness.set('example.com/b', false);
    readiness.set('example.com/a', false);
    readiness.set('example.com/c', true);
    expect(readiness.readiness()).toEqual({
      ok: false,
      message: 'not registered: example.com/a, example.com/b',
    });
    readiness.set('example.com/a', true);
    readiness.remove('example.com/b');
    expect(readiness.readiness()).toEqual({ ok: true, message: 'ready' });
  });
});
