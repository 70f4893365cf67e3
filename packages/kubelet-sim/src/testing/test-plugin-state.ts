import type { Server } from '@grpc/grpc-js';
import type { Device, DevicePluginOptions, ListAndWatchResponse, pluginregistration } from '@kdp/api';
import type { TestPluginOptions } from './test-plugin-types';

/** What the parts of a test plugin share: its settings and its mutable state. */
export interface TestPluginState {
  readonly options: TestPluginOptions;
  readonly resource: string;
  readonly endpoint: string;
  readonly socketPath: string;
  readonly kubeletSocket: string;
  /** What GetDevicePluginOptions returns. */
  readonly pluginOptions: DevicePluginOptions;
  readonly registrationStatus: pluginregistration.RegistrationStatus[];
  /** Woken on every NotifyRegistrationStatus. */
  readonly statusWaiters: Set<() => void>;
  /** Open ListAndWatch streams, which `setDevices` writes to. */
  readonly streams: Set<{ write(m: ListAndWatchResponse): unknown }>;
  devices: Device[];
  server: Server | undefined;
  stopped: boolean;
  /** Successful Register calls so far. */
  registrations: number;
  /** Bumped on every Register attempt; a stream opened before the latest one is stale. */
  registerGeneration: number;
  /** ListAndWatch streams opened so far. */
  streamCount: number;
  /** The inode of kubelet.sock at the last successful Register, to notice a kubelet restart. */
  kubeletInode: number | undefined;
  registering: boolean;
  needsRegister: boolean;
  /** A rebind in flight. */
  rebinding: Promise<void> | undefined;
}
