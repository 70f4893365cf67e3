import type { RdmaHca, RdmaPort } from '../scan/read-rdma-inventory';

/** An RDMA device's health for the ports a resource counts, with the reason when unhealthy. */
export interface HcaHealth {
  readonly healthy: boolean;
  readonly reason?: string;
}

/**
 * Healthy when its uverbs node exists under the dev root and at least one counted port is up (state ACTIVE,
 * phys_state LinkUp). Nothing on the host is changed: a down port is reported, never brought up.
 */
export function hcaHealth(hca: RdmaHca, ports: readonly RdmaPort[]): HcaHealth {
  const missing = hca.charDevices.filter((device) => device.kind === 'uverbs' && !device.present);
  if (missing.length > 0) {
    return { healthy: false, reason: `${missing.map((d) => d.hostPath).join(', ')} missing` };
  }
  if (ports.length === 0) return { healthy: false, reason: 'no ports' };
  if (!ports.some((port) => port.up)) {
    const states = ports.map(
      (port) => `port ${port.number} ${port.state?.name ?? 'unknown'}/${port.physState?.name ?? 'unknown'}`,
    );
    return { healthy: false, reason: `all ports down (${states.join(', ')})` };
  }
  return { healthy: true };
}
