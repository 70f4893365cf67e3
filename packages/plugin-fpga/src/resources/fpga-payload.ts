import type { DeviceNode } from '@kdp/core';
import type { AmdCard } from '../scan/scan-amd-cards';
import type { IntelPort } from '../scan/scan-intel-ports';

/** What the plugin keeps with each advertised device for Allocate and PreStartContainer. */
export interface FpgaPayload {
  readonly vendor: 'intel' | 'amd';
  /** Intel: the ports of this device (one in af mode, every port of the region in region mode). */
  readonly ports: readonly IntelPort[];
  readonly card?: AmdCard;
  /** Intel: the interface ID of the region. */
  readonly interfaceId?: string;
  /** Intel af mode: the loaded AFU. */
  readonly afuId?: string;
  /** Device nodes handed to a container. */
  readonly nodes: readonly DeviceNode[];
}
