import type { ServerWritableStream } from '@grpc/grpc-js';
import { draHealthV1, draHealthV1alpha1 } from '@kdp/api';
import type { Clock } from '@kdp/base';

/** A device's health as the DRA health API knows it. */
export type DraDeviceHealth = 'Healthy' | 'Unhealthy' | 'Unknown';

/** One device's health, as a {@link HealthSource} reports it. */
export interface DeviceHealthReport {
  readonly poolName: string;
  readonly deviceName: string;
  readonly health: DraDeviceHealth;
  /** Why (at most 1024 characters reach the kubelet). */
  readonly message?: string | undefined;
  /** When this health was last determined (ms since the epoch): `last_updated_time`. */
  readonly observedAt: number;
}

/** The plugin's live device health: the full list now, and a signal when it changes. */
export interface HealthSource {
  /** Every device of the driver on this node with its health now. */
  current(): readonly DeviceHealthReport[];
  /** Calls `listener` after each change; returns the unsubscribe function. */
  onChange(listener: () => void): () => void;
}

/** Options for {@link createHealthService}. */
export interface HealthServiceOptions {
  readonly source: HealthSource;
  /** Sent as `health_check_timeout_seconds`; the list is re-sent every half of it. Default 30. */
  readonly timeoutSeconds?: number | undefined;
  readonly clock: Clock;
}

/** `DRAResourceHealth.NodeWatchResources` for v1alpha1 and v1 (the same handler). */
export interface HealthService {
  readonly v1alpha1: draHealthV1alpha1.DRAResourceHealthServer;
  readonly v1: draHealthV1.DRAResourceHealthServer;
  /** Open streams. */
  openStreams(): number;
  /** Ends every open stream. */
  close(): void;
}

/** Default `health_check_timeout_seconds`: the kubelet's own default. */
export const DEFAULT_HEALTH_TIMEOUT_SECONDS = 30;

const MAX_MESSAGE = 1024;

type HealthStream = ServerWritableStream<unknown, draHealthV1.NodeWatchResourcesResponse>;

/**
 * Creates the health service: each NodeWatchResources stream gets the full device list at once, after every
 * change of the source and at least every `timeoutSeconds / 2`. `last_updated_time` is when the source last
 * determined each device's health (KEP 4680), not the send time: while the source keeps observing, the kubelet
 * never times a device out; when its scans stall, the devices read as Unknown after the timeout.
 */
export function createHealthService(options: HealthServiceOptions): HealthService {
  const { source, clock } = options;
  const timeoutSeconds = options.timeoutSeconds ?? DEFAULT_HEALTH_TIMEOUT_SECONDS;
  const closers = new Set<() => void>();

  const snapshot = (): draHealthV1.NodeWatchResourcesResponse => {
    return {
      devices: source.current().map((d) => ({
        device: { poolName: d.poolName, deviceName: d.deviceName },
        health: toProto(d.health),
        lastUpdatedTime: Math.floor(d.observedAt / 1000),
        healthCheckTimeoutSeconds: timeoutSeconds,
        message: truncate(d.message ?? ''),
      })),
    };
  };

  const watch = (call: HealthStream): void => {
    let timer: unknown;
    let closed = false;
    const send = (): void => {
      if (closed) return;
      clock.clearTimeout(timer);
      try {
        call.write(snapshot());
      } catch {
        close();
        return;
      }
      timer = clock.setTimeout(send, (timeoutSeconds * 1000) / 2);
    };
    const unsubscribe = source.onChange(send);
    const close = (): void => {
      if (closed) return;
      closed = true;
      clock.clearTimeout(timer);
      unsubscribe();
      closers.delete(end);
    };
    const end = (): void => {
      close();
      call.end();
    };
    closers.add(end);
    call.on('cancelled', close);
    call.on('close', close);
    call.on('error', close);
    send();
  };

  return {
    v1alpha1: { nodeWatchResources: (call) => watch(call as unknown as HealthStream) },
    v1: { nodeWatchResources: (call) => watch(call as unknown as HealthStream) },
    openStreams: () => closers.size,
    close: () => {
      for (const end of [...closers]) end();
    },
  };
}

function toProto(health: DraDeviceHealth): draHealthV1.HealthStatus {
  if (health === 'Healthy') return draHealthV1.HealthStatus.HEALTHY;
  if (health === 'Unhealthy') return draHealthV1.HealthStatus.UNHEALTHY;
  return draHealthV1.HealthStatus.UNKNOWN;
}

function truncate(message: string): string {
  return message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE - 3)}...` : message;
}
