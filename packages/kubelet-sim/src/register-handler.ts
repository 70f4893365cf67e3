import { join } from 'node:path';
import { SupportedVersions, V1alphaVersion, validateResourceName } from '@kdp/api';
import { connectPlugin } from './connect-plugin';
import type { KubeletState } from './kubelet-state';
import type { RegisterCall } from './registration-server';

/** Go's `%q` of a string slice, for the kubelet's version message (P-7). */
const goQuoteList = (list: readonly string[]): string => `[${list.map((s) => JSON.stringify(s)).join(' ')}]`;

/** Creates the Register handler: validation in the kubelet's order, with its messages (P-7, P-8, P-10, P-11). */
export function createRegisterHandler(options: {
  readonly state: KubeletState;
}): (call: RegisterCall) => Promise<void> {
  const { state } = options;
  return async (call) => {
    const reject = (message: string): never => {
      state.emit('register-rejected', {
        resource: call.resourceName,
        endpoint: call.endpoint,
        version: call.version,
        message,
      });
      throw new Error(message);
    };
    if (state.refusal !== undefined) {
      const message = state.refusal;
      state.refusal = undefined;
      reject(message);
    }
    const supported = call.api === 'v1beta1' ? SupportedVersions : [V1alphaVersion];
    if (!supported.includes(call.version)) {
      reject(
        `requested API version ${JSON.stringify(call.version)} is not supported by kubelet. ` +
          `Supported version is ${goQuoteList(supported)}`,
      );
    }
    const name = validateResourceName(call.resourceName);
    if (!name.valid) reject(name.message);
    try {
      await connectPlugin(state, {
        resource: call.resourceName,
        endpointName: call.endpoint,
        // P-10: filepath.Join(dir, endpoint); the endpoint is not validated.
        socketPath: join(state.dir, call.endpoint),
        api: call.api,
        version: call.version,
        requestOptions: call.options,
        via: 'register',
      });
    } catch (err) {
      reject(err instanceof Error ? err.message : String(err));
    }
  };
}
