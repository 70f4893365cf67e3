import { Server, status, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js';
import { type RegisterRequest, RegistrationService, v1alpha } from '@kdp/api';
import { bindUnix, rpcError, stopServer } from './grpc-util';
import type { PluginApiVersion } from './sim-events';

/** A Register request of either API, normalised: v1alpha has no options. */
export interface RegisterCall {
  readonly version: string;
  readonly endpoint: string;
  readonly resourceName: string;
  readonly options: RegisterRequest['options'];
  /** Which Registration service received it. */
  readonly api: PluginApiVersion;
}

/** The kubelet's Registration server on `kubelet.sock`. */
export interface RegistrationServerHandle {
  close(): Promise<void>;
}

/**
 * Serves Registration on `socket` for the accepted APIs (a current kubelet: v1beta1 only, so v1alpha Register
 * gets UNIMPLEMENTED). A rejection from `onRegister` becomes gRPC UNKNOWN with its message, as a plain Go
 * error does (P-7).
 */
export async function startRegistrationServer(options: {
  socket: string;
  acceptedApis: readonly PluginApiVersion[];
  onRegister(call: RegisterCall): Promise<void>;
}): Promise<RegistrationServerHandle> {
  const handle = (request: RegisterCall, callback: sendUnaryData<v1alpha.Empty>): void => {
    options.onRegister(request).then(
      () => callback(null, {}),
      (err: unknown) => callback(rpcError(status.UNKNOWN, err instanceof Error ? err.message : String(err))),
    );
  };
  const server = new Server();
  if (options.acceptedApis.includes('v1beta1')) {
    server.addService(RegistrationService, {
      register: (
        call: ServerUnaryCall<RegisterRequest, v1alpha.Empty>,
        callback: sendUnaryData<v1alpha.Empty>,
      ) => handle({ ...call.request, api: 'v1beta1' }, callback),
    });
  }
  if (options.acceptedApis.includes('v1alpha2')) {
    server.addService(v1alpha.RegistrationService, {
      register: (
        call: ServerUnaryCall<v1alpha.RegisterRequest, v1alpha.Empty>,
        callback: sendUnaryData<v1alpha.Empty>,
      ) => handle({ ...call.request, options: undefined, api: 'v1alpha2' }, callback),
    });
  }
  await bindUnix(server, options.socket);
  return { close: () => stopServer(server) };
}
