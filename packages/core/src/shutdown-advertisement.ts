import { Unhealthy, type Device } from '@kdp/api';

/** The device list a shutting-down plugin may send last: everything unhealthy, or nothing. */
export function shutdownAdvertisement(
  mode: 'none' | 'empty' | 'unhealthy',
  snapshot: Device[],
): Device[] | undefined {
  if (mode === 'empty') return [];
  if (mode === 'unhealthy') return snapshot.map((d) => ({ ...d, health: Unhealthy }));
  return undefined;
}
