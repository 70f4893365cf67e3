import type { ProbeResult } from '@kdp/base';

/** Which resources are registered with the kubelet, as `/readyz` reports it. */
export interface RegistrationReadiness {
  /** Records whether a resource is registered now. */
  set(resource: string, registered: boolean): void;
  /** Forgets a resource removed at run time. */
  remove(resource: string): void;
  /** Ok when every known resource is registered (vacuously when none), else which are not. */
  readiness(): ProbeResult;
}

/** Creates an empty {@link RegistrationReadiness}. */
export function createRegistrationReadiness(): RegistrationReadiness {
  const registered = new Map<string, boolean>();
  return {
    set: (resource, value) => void registered.set(resource, value),
    remove: (resource) => void registered.delete(resource),
    readiness() {
      const waiting = [...registered]
        .filter(([, ok]) => !ok)
        .map(([resource]) => resource)
        .sort();
      return waiting.length === 0
        ? { ok: true, message: 'ready' }
        : { ok: false, message: `not registered: ${waiting.join(', ')}` };
    },
  };
}
