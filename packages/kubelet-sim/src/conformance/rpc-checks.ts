import { type DevicePluginClient, type DevicePluginOptions } from '@kdp/api';
import { callUnary, goErrorString } from '../grpc-util';
import type { ConformanceCheck } from './conformance-check';

/** Deadline of the conformance suite's own unary calls (Allocate, GetPreferredAllocation). */
const callTimeoutMs = 10_000;

/** An ID no plugin advertises. */
const unknownId = 'kubelet-sim-conformance-no-such-device';

/**
 * Allocate with N container requests must answer N responses, in order (P-27): the kubelet sends one, but
 * other kubelets (Krustlet) batch containers.
 */
export async function checkAllocatePerRequest(
  client: DevicePluginClient,
  healthy: readonly string[],
): Promise<ConformanceCheck> {
  const id = 'allocate-per-request';
  const title = 'Allocate answers N container requests with N responses';
  const [a, b = a] = healthy;
  if (a === undefined)
    return { id, title, status: 'warn', reason: 'not run: the plugin lists no healthy device' };
  const requests = [{ devicesIds: [a] }, { devicesIds: [b ?? a] }, { devicesIds: [a] }];
  try {
    const response = await callUnary(client, client.allocate, { containerRequests: requests }, callTimeoutMs);
    const n = response.containerResponses.length;
    if (n !== requests.length) {
      return {
        id,
        title,
        status: 'fail',
        reason: `${requests.length} container requests got ${n} container responses; answer one per request, in order (P-27)`,
      };
    }
    return { id, title, status: 'pass', reason: `${n} requests, ${n} responses` };
  } catch (err) {
    return { id, title, status: 'fail', reason: `Allocate of healthy devices failed: ${goErrorString(err)}` };
  }
}

/** An unknown device ID must get an error, and the plugin must keep serving (P-27). */
export async function checkAllocateUnknownId(
  client: DevicePluginClient,
  streamStillOpen: () => boolean,
): Promise<ConformanceCheck> {
  const id = 'allocate-unknown-id';
  const title = 'Allocate of an unknown ID gets an error and the plugin stays up';
  let error: unknown;
  try {
    await callUnary(
      client,
      client.allocate,
      { containerRequests: [{ devicesIds: [unknownId] }] },
      callTimeoutMs,
    );
  } catch (err) {
    error = err;
  }
  try {
    await callUnary(client, client.getDevicePluginOptions, {}, callTimeoutMs);
  } catch (err) {
    return {
      id,
      title,
      status: 'fail',
      reason: `the plugin stopped answering after Allocate of an unknown ID: ${goErrorString(err)}`,
    };
  }
  if (!streamStillOpen()) {
    return {
      id,
      title,
      status: 'fail',
      reason: 'the ListAndWatch stream ended after Allocate of an unknown ID',
    };
  }
  if (error === undefined) {
    return {
      id,
      title,
      status: 'fail',
      reason: `Allocate of ${JSON.stringify(unknownId)} succeeded; an unknown ID must get an error whose message reads well in a pod event`,
    };
  }
  return { id, title, status: 'pass', reason: `rejected with ${goErrorString(error)}` };
}

/** GetPreferredAllocation must honour must_include and the size, and return only available IDs (P-26). */
export async function checkPreferredAllocation(
  client: DevicePluginClient,
  options: DevicePluginOptions,
  healthy: readonly string[],
): Promise<ConformanceCheck> {
  const id = 'preferred-allocation';
  const title = 'GetPreferredAllocation honours must_include and size and returns only available IDs';
  if (!options.getPreferredAllocationAvailable) {
    return { id, title, status: 'pass', reason: 'not advertised, so the kubelet never calls it' };
  }
  if (healthy.length < 2) {
    return { id, title, status: 'warn', reason: 'not run: it needs at least two healthy devices' };
  }
  const mustInclude = healthy.slice(-1);
  const size = 2;
  let ids: string[];
  try {
    const response = await callUnary(
      client,
      client.getPreferredAllocation,
      {
        containerRequests: [
          { availableDeviceIDs: [...healthy], mustIncludeDeviceIDs: mustInclude, allocationSize: size },
        ],
      },
      callTimeoutMs,
    );
    const first = response.containerResponses[0];
    if (first === undefined) {
      return { id, title, status: 'fail', reason: 'no container response for the one container request' };
    }
    ids = first.deviceIDs;
  } catch (err) {
    return { id, title, status: 'fail', reason: `GetPreferredAllocation failed: ${goErrorString(err)}` };
  }
  const foreign = ids.filter((d) => !healthy.includes(d));
  if (foreign.length > 0) {
    return {
      id,
      title,
      status: 'fail',
      reason: `returned IDs that were not available: ${foreign.join(', ')}`,
    };
  }
  const missing = mustInclude.filter((d) => !ids.includes(d));
  if (missing.length > 0) {
    return { id, title, status: 'fail', reason: `left out the must_include IDs ${missing.join(', ')}` };
  }
  if (ids.length !== size) {
    return { id, title, status: 'fail', reason: `returned ${ids.length} IDs for allocation_size ${size}` };
  }
  return { id, title, status: 'pass', reason: `preferred ${ids.join(', ')}` };
}

/** PreStartContainer, when required, must finish within the kubelet's 30 s (P-29). */
export async function checkPreStart(
  client: DevicePluginClient,
  options: DevicePluginOptions,
  healthy: readonly string[],
  timeoutMs: number,
): Promise<ConformanceCheck> {
  const id = 'pre-start-container';
  const title = `PreStartContainer answers within ${timeoutMs / 1000} s`;
  if (!options.preStartRequired)
    return { id, title, status: 'pass', reason: 'not required, so never called' };
  const first = healthy[0];
  if (first === undefined) return { id, title, status: 'warn', reason: 'not run: no healthy device' };
  const started = performance.now();
  try {
    await callUnary(client, client.preStartContainer, { devicesIds: [first] }, timeoutMs);
    return { id, title, status: 'pass', reason: `answered in ${Math.round(performance.now() - started)} ms` };
  } catch (err) {
    return { id, title, status: 'fail', reason: `PreStartContainer failed: ${goErrorString(err)}` };
  }
}
