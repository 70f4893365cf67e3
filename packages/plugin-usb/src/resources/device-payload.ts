import type { DeviceMount, DeviceNode } from '@kdp/core';
import type { NodeKind } from '../config';
import type { UsbDevice } from '../scan/usb-device';

/** What an advertised USB device carries to Allocate. */
export interface UsbPayload {
  readonly kind: 'usb';
  /** The stable ID of the physical device (shared devices have `#n` suffixes on top). */
  readonly baseId: string;
  readonly device: UsbDevice;
  readonly permissions: string;
  readonly nodes: readonly NodeKind[];
}

/** What an advertised device-path device carries to Allocate. */
export interface PathPayload {
  readonly kind: 'paths';
  readonly baseId: string;
  readonly devices: readonly DeviceNode[];
  readonly mounts: readonly DeviceMount[];
}

/** The payload of every device this plugin advertises. */
export type DevicePayload = UsbPayload | PathPayload;
