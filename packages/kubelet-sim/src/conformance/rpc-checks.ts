import { type DevicePluginClient, type DevicePluginOptions } from '@kdp/api';
import { callUnary, goErrorString } from '../grpc-util';
import { checkCatalog, checkResult } from './check-catalog';
import type { ConformanceCheck } from './conformance-check';

/** Deadline of the conformance suite's own unary calls (Allocate, GetPreferredAllocation). */
const callTimeoutMs = 10_000;

/** An ID no plugin advertises. */
const unknownId = 'kubelet-sim-conformance-no-such-device';

const noHealthyDevice = 'not run: the plugin lists no healthy device';

/**
 * Allocate as the kubelet calls it, one container request with one healthy device, must succeed with at
 * least one container response (P-27); N container requests should get N responses in order, because other
 * kubelets (Krustlet) batch containers. Returns `allocate` and `allocate-per-request`.
 */
export async function checkAllocate(
  client: DevicePluginClient,
  healthy: readonly string[],
): Promise<[ConformanceCheck, ConformanceCheck]> {
  const { allocate, allocatePerRequest } = checkCatalog;
  const [a, b = a] = healthy;
  if (a === undefined || b === undefined) {
    return [
      checkResult(allocate, 'skip', noHealthyDevice),
      checkResult(allocatePerRequest, 'skip', noHealthyDevice),
    ];
  }
  let one: ConformanceCheck;
  try {
    const response = await callUnary(
      client,
      client.allocate,
      { containerRequests: [{ devicesIds: [a] }] },
      callTimeoutMs,
    );
    one =
      response.containerResponses.length === 0
        ? checkResult(
            allocate,
            'fail',
            `Allocate of ${a} answered no container response; the kubelet rejects the pod with ` +
              '"no containers return in allocation response"',
          )
        : checkResult(allocate, 'pass', `${a}: ${response.containerResponses.length} container response(s)`);
  } catch (err) {
    one = checkResult(
      allocate,
      'fail',
      `Allocate of the healthy device ${a} failed: ${goErrorString(err)}; the pod is rejected`,
    );
  }
  const requests = [{ devicesIds: [a] }, { devicesIds: [b] }, { devicesIds: [a] }];
  try {
    const response = await callUnary(client, client.allocate, { containerRequests: requests }, callTimeoutMs);
    const n = response.containerResponses.length;
    return [
      one,
      n === requests.length
        ? checkResult(allocatePerRequest, 'pass', `${n} requests, ${n} responses`)
        : checkResult(
            allocatePerRequest,
            'warn',
            `${requests.length} container requests got ${n} container responses; the kubelet sends one, ` +
              'but kubelets that batch containers need one per request, in order',
          ),
    ];
  } catch (err) {
    return [
      one,
      checkResult(
        allocatePerRequest,
        'warn',
        `Allocate of ${requests.length} container requests failed: ${goErrorString(err)}`,
      ),
    ];
  }
}

/**
 * Allocate of an unknown ID should get an error (`allocate-unknown-id`), and must not stop the plugin or
 * end its stream (`survives-bad-request`): the kubelet would see every device unhealthy (P-19).
 * `streamKept` says whether the stream open before the request is still open (undefined: none was).
 */
export async function checkUnknownId(
  client: DevicePluginClient,
  streamKept: () => boolean | undefined,
): Promise<[ConformanceCheck, ConformanceCheck]> {
  const { allocateUnknownId, survivesBadRequest } = checkCatalog;
  const notJudged = checkResult(
    allocateUnknownId,
    'skip',
    `not judged: the plugin did not survive the request (${survivesBadRequest.id})`,
  );
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
    return [
      notJudged,
      checkResult(
        survivesBadRequest,
        'fail',
        `the plugin stopped answering after Allocate of an unknown ID: ${goErrorString(err)}`,
      ),
    ];
  }
  const kept = streamKept();
  if (kept === false) {
    return [
      notJudged,
      checkResult(
        survivesBadRequest,
        'fail',
        'the ListAndWatch stream ended after Allocate of an unknown ID; the kubelet marks every device unhealthy',
      ),
    ];
  }
  const survived = checkResult(
    survivesBadRequest,
    'pass',
    kept === true ? 'still answers, stream still open' : 'still answers (its stream had ended before)',
  );
  if (error === undefined) {
    return [
      checkResult(
        allocateUnknownId,
        'warn',
        `Allocate of ${JSON.stringify(unknownId)} succeeded; an unknown ID should get an error whose message ` +
          'reads well in a pod event (the kubelet itself sends only listed IDs)',
      ),
      survived,
    ];
  }
  return [checkResult(allocateUnknownId, 'pass', `rejected with ${goErrorString(error)}`), survived];
}

/**
 * GetPreferredAllocation, when advertised, must answer without an error: an error fails admission
 * (`preferred-allocation-answers`, P-26). It should honour must_include and the size and return only
 * available IDs (`preferred-allocation`): the kubelet intersects and fills the answer itself, so only a warning.
 */
export async function checkPreferredAllocation(
  client: DevicePluginClient,
  options: DevicePluginOptions,
  healthy: readonly string[],
): Promise<[ConformanceCheck, ConformanceCheck]> {
  const { preferredAnswers, preferredAllocation } = checkCatalog;
  if (!options.getPreferredAllocationAvailable) {
    const reason = 'not advertised, so the kubelet never calls it';
    return [checkResult(preferredAnswers, 'skip', reason), checkResult(preferredAllocation, 'skip', reason)];
  }
  if (healthy.length === 0) {
    return [
      checkResult(preferredAnswers, 'skip', noHealthyDevice),
      checkResult(preferredAllocation, 'skip', noHealthyDevice),
    ];
  }
  // With one healthy device only the call itself can be judged; with two, must_include and the size too.
  const mustInclude = healthy.length >= 2 ? healthy.slice(-1) : [];
  const size = Math.min(2, healthy.length);
  let ids: string[] | undefined;
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
    ids = response.containerResponses[0]?.deviceIDs;
  } catch (err) {
    return [
      checkResult(
        preferredAnswers,
        'fail',
        `GetPreferredAllocation failed: ${goErrorString(err)}; the kubelet rejects the pod`,
      ),
      checkResult(preferredAllocation, 'skip', `not judged: the call failed (${preferredAnswers.id})`),
    ];
  }
  const answered = checkResult(preferredAnswers, 'pass', 'answered without an error');
  return [answered, judgePreference(ids, healthy, mustInclude, size)];
}

function judgePreference(
  ids: readonly string[] | undefined,
  healthy: readonly string[],
  mustInclude: readonly string[],
  size: number,
): ConformanceCheck {
  const { preferredAllocation } = checkCatalog;
  if (healthy.length < 2) {
    return checkResult(preferredAllocation, 'skip', 'not run: it needs at least two healthy devices');
  }
  const filled = 'the kubelet ignores what is wrong and fills the rest itself';
  if (ids === undefined) {
    return checkResult(
      preferredAllocation,
      'warn',
      `no container response for the one container request; ${filled}`,
    );
  }
  const foreign = ids.filter((d) => !healthy.includes(d));
  if (foreign.length > 0) {
    return checkResult(
      preferredAllocation,
      'warn',
      `returned IDs that were not available: ${foreign.join(', ')}; ${filled}`,
    );
  }
  const missing = mustInclude.filter((d) => !ids.includes(d));
  if (missing.length > 0) {
    return checkResult(
      preferredAllocation,
      'warn',
      `left out the must_include IDs ${missing.join(', ')}; ${filled}`,
    );
  }
  if (ids.length !== size) {
    return checkResult(
      preferredAllocation,
      'warn',
      `returned ${ids.length} IDs for allocation_size ${size}; ${filled}`,
    );
  }
  return checkResult(preferredAllocation, 'pass', `preferred ${ids.join(', ')}`);
}

/** PreStartContainer, when required, must succeed within the kubelet's 30 s, or the container does not start (P-29). */
export async function checkPreStart(
  client: DevicePluginClient,
  options: DevicePluginOptions,
  healthy: readonly string[],
  timeoutMs: number,
): Promise<ConformanceCheck> {
  const { preStart } = checkCatalog;
  if (!options.preStartRequired) return checkResult(preStart, 'skip', 'not required, so never called');
  const first = healthy[0];
  if (first === undefined) return checkResult(preStart, 'skip', noHealthyDevice);
  const started = performance.now();
  try {
    await callUnary(client, client.preStartContainer, { devicesIds: [first] }, timeoutMs);
    return checkResult(preStart, 'pass', `answered in ${Math.round(performance.now() - started)} ms`);
  } catch (err) {
    return checkResult(
      preStart,
      'fail',
      `PreStartContainer failed (deadline ${timeoutMs / 1000} s): ${goErrorString(err)}; the container does not start`,
    );
  }
}
