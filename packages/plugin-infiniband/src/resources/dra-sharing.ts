import type { DraSharing } from '@kdp/core';
import type { RdmaPayload } from './rdma-payload';

/** The capacity a shared resource's HCAs publish under DRA: `rdmaHcaMax`, of which each claim takes one. */
export const SHARES_CAPACITY = 'shares';

/** The DRA device ID of a shared resource's HCAs: one device for all its IDs. */
export const SHARED_HCAS_DEVICE = 'hcas';

/**
 * Shared mode under DRA (KEP 5075): the `rdmaHcaMax` IDs that all grant the same HCAs are one device several claims
 * may hold (`allowMultipleAllocations`), with the capacity `shares` = `rdmaHcaMax`, one share per claim, so at most
 * `rdmaHcaMax` claims hold the HCAs at once, as at most that many containers do under the device-plugin API.
 */
export function sharedHcaSharing(rdmaHcaMax: number): DraSharing<RdmaPayload> {
  return {
    devices: (list) => list.slice(0, 1).map((device) => ({ ...device, id: SHARED_HCAS_DEVICE })),
    capacity: () => ({
      [SHARES_CAPACITY]: {
        value: rdmaHcaMax,
        requestPolicy: { default: 1, validRange: { min: 1, max: 1, step: 1 } },
      },
    }),
  };
}
