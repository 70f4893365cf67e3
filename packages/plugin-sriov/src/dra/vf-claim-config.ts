import type { ClaimConfigKind, ClaimConfigValue, ResourceClaimConfig } from '@kdp/core';
import type { PooledFunction } from '../resources/assign-pools';

/** Drivers through which a VF is used without the kernel's network stack (DPDK, VMs). */
const USERSPACE_DRIVERS = ['vfio-pci', 'igb_uio', 'uio_pci_generic'];

/**
 * `sriov.kdp.dev/v1alpha1` `VfConfig`: what a claim needs of its VF. `driver`: `netdevice` (bound to a kernel
 * network driver, an interface the CNI moves into the pod) or `vfio-pci` (bound to vfio-pci, for DPDK or a VM).
 */
export const vfConfigKind: ClaimConfigKind = {
  apiVersion: 'sriov.kdp.dev/v1alpha1',
  kind: 'VfConfig',
  schema: {
    type: 'object',
    required: ['driver'],
    fields: {
      driver: {
        type: 'string',
        enum: ['netdevice', 'vfio-pci'],
        description: 'netdevice: a kernel network interface; vfio-pci: the VF bound to vfio-pci.',
      },
    },
  },
};

/** What a VF's bound driver provides: `vfio-pci`, `netdevice`, or another user-space driver / none. */
function provides(driver: string | undefined): string {
  if (driver === 'vfio-pci') return 'vfio-pci';
  if (driver === undefined || USERSPACE_DRIVERS.includes(driver)) return driver ?? 'no driver';
  return 'netdevice';
}

/**
 * An SR-IOV pool's claim configuration: a VfConfig's `driver` must be what the allocated VF's bound driver
 * provides, else the claim fails at prepare naming the pool (kdp does not rebind VFs: a pool is selected by driver).
 */
export function vfClaimConfig(resource: string): ResourceClaimConfig<PooledFunction> {
  return {
    kinds: [vfConfigKind],
    apply({ device, config }) {
      const wanted = (config[config.length - 1] as ClaimConfigValue)['driver'] as string;
      const bound = device.payload?.fn.driver;
      const has = provides(bound);
      if (has !== wanted)
        throw new Error(
          `VfConfig driver ${wanted}: VF ${device.id} of pool ${resource} is bound to ${bound ?? 'no driver'} (${has}); ` +
            `this pool cannot provide ${wanted}: claim a VF of a ${wanted} pool (its DeviceClass)`,
        );
      return {};
    },
  };
}
