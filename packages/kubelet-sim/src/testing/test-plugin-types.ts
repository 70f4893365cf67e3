import type { Device, DevicePluginOptions, pluginregistration } from '@kdp/api';

/**
 * Options of {@link createTestPlugin}. The defaults make a well-behaved plugin; each other setting breaks one
 * rule of the kubelet protocol, so conformance tests can check that the suite notices.
 */
export interface TestPluginOptions {
  readonly dir: string;
  /** Default `example.com/dev`. */
  readonly resource?: string;
  /** Socket file name in `dir`; default a random `tp-….sock`. */
  readonly endpoint?: string;
  /** Default: four healthy devices, two on NUMA node 0 and two on node 1. */
  readonly devices?: Device[];
  /** What GetDevicePluginOptions returns; default both capabilities on. */
  readonly options?: DevicePluginOptions;
  /** What RegisterRequest.options says; default the same as `options`. */
  readonly registerOptions?: DevicePluginOptions;
  /** RegisterRequest.version; default `v1beta1`. */
  readonly version?: string;
  /** Register with the old v1alpha API (`deviceplugin.Registration`) instead. */
  readonly api?: 'v1beta1' | 'v1alpha2';
  /** Register first and only start serving this many ms later (a wrong order). */
  readonly serveAfterRegisterMs?: number;
  /** Delay before the first ListAndWatch message. */
  readonly firstListDelayMs?: number;
  /**
   * On every stream but the first, list every device Unhealthy and the real health only this many ms later
   * (a plugin whose health probe starts over when it registers again).
   */
  readonly unhealthyAfterReregisterMs?: number;
  /** Right after the first message, send one with only the first device (a delta, not a full list). */
  readonly deltaUpdates?: boolean;
  /** How Allocate answers N container requests: one response each (default), only one, none, or an error. */
  readonly allocate?: 'per-request' | 'single' | 'none' | 'error';
  /** Allocate IDs it does not know without an error. */
  readonly acceptUnknownIds?: boolean;
  /** Stop serving when Allocate gets an unknown ID (a plugin that crashes on bad input). */
  readonly dieOnUnknownIds?: boolean;
  /**
   * How GetPreferredAllocation answers: correctly, ignoring must_include, with the wrong size, with IDs that
   * are not available, or with an error.
   */
  readonly preferred?: 'correct' | 'ignore-must-include' | 'wrong-size' | 'unavailable-ids' | 'error';
  /** How PreStartContainer answers: at once, never, or with an error. */
  readonly preStart?: 'ok' | 'hang' | 'error';
  /**
   * Plugin-watcher mode (P-36): serve the socket in this directory with the pluginregistration service as
   * well, and never call Register; the kubelet finds the socket itself.
   */
  readonly pluginsRegistryDir?: string;
  /** Plugin-watcher GetInfo type; default `DevicePlugin`. */
  readonly pluginType?: string;
  /** Re-register after a kubelet restart or a dropped stream: at once (default), after a delay in ms, or never. */
  readonly reregister?: 'immediately' | 'never' | number;
  /**
   * Also re-register when the kubelet ends the ListAndWatch stream (default true). False is the documented
   * contract only, as NVIDIA's plugin follows it: re-register when the socket is deleted or `kubelet.sock`
   * is created again.
   */
  readonly reregisterOnStreamEnd?: boolean;
}

/** A small device plugin written against raw @grpc/grpc-js, for testing the simulator and the conformance suite. */
export interface TestPlugin {
  readonly resource: string;
  readonly endpoint: string;
  readonly socketPath: string;
  /** Successful Register calls so far. */
  readonly registrations: number;
  /** The NotifyRegistrationStatus calls received (plugin-watcher mode). */
  readonly registrationStatus: pluginregistration.RegistrationStatus[];
  /** Resolves once `count` NotifyRegistrationStatus calls arrived; rejects after `timeoutMs`. */
  statusReceived(count: number, timeoutMs?: number): Promise<pluginregistration.RegistrationStatus[]>;
  /** Replaces the device list and sends it on every open stream. */
  setDevices(devices: Device[]): void;
  /** Stops serving, unlinks the socket and stops re-registering (what a plugin does on SIGTERM). */
  stop(): Promise<void>;
}
