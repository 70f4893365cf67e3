import { basename } from 'node:path';
import { credentials, status, type ServiceError } from '@grpc/grpc-js';
import { RegistrationClient, V1alphaVersion, Version, v1alpha, type DevicePluginOptions } from '@kdp/api';
import { GRPC_CHANNEL_OPTIONS } from './grpc-channel-options';

/** The API versions core can register with, newest first. */
export type ApiVersion = typeof Version | typeof V1alphaVersion;

/** What one Register call needs. */
export interface RegisterCall {
  readonly kubeletSocket: string;
  readonly socketPath: string;
  readonly resource: string;
  readonly options: DevicePluginOptions;
  readonly timeoutMs: number;
  /** Versions to try in order; a later one is tried only when the kubelet answers UNIMPLEMENTED. */
  readonly versions: readonly ApiVersion[];
}

function callRegister(
  client: {
    register(req: object, meta: object, opts: object, cb: (e: ServiceError | null) => void): unknown;
  },
  request: object,
  timeoutMs: number,
): Promise<void> {
  return new Promise((resolve, reject) => {
    // grpc-js wants Metadata or options in fixed positions; an empty Metadata-less overload is ambiguous.
    (client.register as (req: object, opts: object, cb: (e: ServiceError | null) => void) => unknown)(
      request,
      { deadline: Date.now() + timeoutMs },
      (error) => (error ? reject(error) : resolve()),
    );
  });
}

/**
 * Registers with the kubelet over a fresh connection (a restarted kubelet has a new socket): v1beta1 first, then,
 * only if the kubelet says UNIMPLEMENTED, the old v1alpha API (P-7, P-1.4). Returns the version accepted; throws
 * the kubelet's error otherwise. The endpoint sent is the bare socket file name (P-10).
 */
export async function registerWithKubelet(call: RegisterCall): Promise<ApiVersion> {
  const address = `unix://${call.kubeletSocket}`;
  const endpoint = basename(call.socketPath);
  let lastError: unknown = new Error('no API version to register with');
  for (const version of call.versions) {
    const client =
      version === Version
        ? new RegistrationClient(address, credentials.createInsecure(), GRPC_CHANNEL_OPTIONS)
        : new v1alpha.RegistrationClient(address, credentials.createInsecure(), GRPC_CHANNEL_OPTIONS);
    try {
      const request =
        version === Version
          ? { version, endpoint, resourceName: call.resource, options: call.options }
          : { version, endpoint, resourceName: call.resource };
      await callRegister(client as never, request, call.timeoutMs);
      return version;
    } catch (error) {
      lastError = error;
      if ((error as Partial<ServiceError>).code !== status.UNIMPLEMENTED) throw error;
    } finally {
      client.close();
    }
  }
  throw lastError;
}
