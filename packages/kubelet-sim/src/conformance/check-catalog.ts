import { DeviceIdMaxLength, Version } from '@kdp/api';
import type { CheckStatus, ConformanceCheck } from './conformance-check';

/** A check as the suite defines it: its identifier, title, level and the kubelet rules behind it. */
export interface CheckDefinition {
  readonly id: string;
  readonly title: string;
  readonly level: ConformanceCheck['level'];
  readonly rules: readonly string[];
}

/** How soon the first list, each re-registration and recovered health are expected. */
export const promptMs = 1000;

/** A duration in ms as seconds with two decimals, e.g. `1.00 s`. */
export const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;

const required = (id: string, title: string, ...rules: string[]): CheckDefinition => ({
  id,
  title,
  level: 'required',
  rules,
});
const recommended = (id: string, title: string, ...rules: string[]): CheckDefinition => ({
  id,
  title,
  level: 'recommended',
  rules,
});

/**
 * Every check of the suite, in the order it runs them. Required checks cover what a real kubelet punishes;
 * recommended ones robustness it does not demand. `reregister-after-restart` runs once per restart
 * (`-1`, `-2`, … when there are several).
 */
export const checkCatalog = {
  registers: required('registers', 'Register is accepted', 'P-7', 'P-8', 'P-11'),
  resourceName: required('resource-name', 'the resource name is a valid extended resource name', 'P-8'),
  apiVersion: required('api-version', `Register uses version ${Version}`, 'P-7'),
  servesFirst: required('serves-before-register', 'the plugin serves its socket before it registers', 'P-11'),
  optionsMatch: recommended(
    'options-match',
    'RegisterRequest.options equal the GetDevicePluginOptions reply',
    'P-10',
  ),
  firstList: required('first-list', 'a ListAndWatch message arrives after Register', 'P-12', 'P-14'),
  firstListLatency: recommended(
    'first-list-latency',
    `the first ListAndWatch message arrives within ${promptMs / 1000} s`,
    'P-12',
  ),
  allocate: required('allocate', 'Allocate of a healthy device succeeds with a container response', 'P-27'),
  allocatePerRequest: recommended(
    'allocate-per-request',
    'Allocate answers N container requests with N responses',
    'P-27',
  ),
  allocateUnknownId: recommended('allocate-unknown-id', 'Allocate of an unknown ID gets an error', 'P-27'),
  survivesBadRequest: required(
    'survives-bad-request',
    'after a bad Allocate the plugin still answers and keeps its stream',
    'P-19',
    'P-27',
  ),
  preferredAnswers: required(
    'preferred-allocation-answers',
    'GetPreferredAllocation, when advertised, answers without an error',
    'P-26',
  ),
  preferredAllocation: recommended(
    'preferred-allocation',
    'GetPreferredAllocation honours must_include and size and returns only available IDs',
    'P-26',
  ),
  preStart: required('pre-start-container', 'PreStartContainer, when required, succeeds in time', 'P-29'),
  reregisterAfterDrop: recommended(
    'reregister-after-stream-drop',
    `registers again within ${promptMs / 1000} s after a dropped stream and lists its devices`,
    'P-19',
    'P-21',
  ),
  reregisterAfterRestart: required(
    'reregister-after-restart',
    'registers again after a kubelet restart and lists its devices',
    'P-2',
    'P-3',
    'P-5',
  ),
  reregisterLatency: recommended(
    'reregister-latency',
    `registers again within ${promptMs / 1000} s of each kubelet restart`,
    'P-5',
  ),
  healthRecovers: recommended(
    'health-recovers',
    `devices healthy before a disruption are listed Healthy within ${promptMs / 1000} s of registering again`,
    'P-5',
    'P-19',
  ),
  healthStrings: required(
    'health-strings',
    'every device health is exactly "Healthy" or "Unhealthy"',
    'P-15',
  ),
  fullLists: recommended(
    'full-lists',
    'every ListAndWatch message is a full list without empty or duplicate IDs',
    'P-14',
  ),
  deviceIdLength: recommended(
    'device-id-length',
    `device IDs are at most ${DeviceIdMaxLength} characters`,
    'P-18',
  ),
  sigterm: recommended('sigterm-unlinks-socket', 'the plugin unlinks its socket on SIGTERM', 'P-2', 'P-36'),
} as const satisfies Record<string, CheckDefinition>;

/**
 * The outcome of `definition`: a reason other than a pass ends with the level and the rules it enforces.
 * A required check never warns (the caller's contract); `id` overrides the definition's (numbered restarts).
 */
export function checkResult(
  definition: CheckDefinition,
  status: CheckStatus,
  reason: string,
  id: string = definition.id,
): ConformanceCheck {
  return {
    id,
    title: definition.title,
    level: definition.level,
    rules: definition.rules,
    status,
    reason: status === 'pass' ? reason : `${reason} (${definition.level}: ${definition.rules.join(', ')})`,
  };
}

/** Under `strict`, a recommended check's warning is a failure; everything else stays as it is. */
export function strictCheck(check: ConformanceCheck, strict: boolean): ConformanceCheck {
  return strict && check.level === 'recommended' && check.status === 'warn'
    ? { ...check, status: 'fail' }
    : check;
}

/** The id of the `index`-th (from 1) restart check of a run with `restarts` restarts. */
export const restartCheckId = (index: number, restarts: number): string =>
  restarts > 1
    ? `${checkCatalog.reregisterAfterRestart.id}-${index}`
    : checkCatalog.reregisterAfterRestart.id;

/** Every check a run with `restarts` kubelet restarts reports, in order, with its id. */
export function plannedChecks(restarts: number): { definition: CheckDefinition; id: string }[] {
  return Object.values(checkCatalog).flatMap((definition: CheckDefinition) =>
    definition === checkCatalog.reregisterAfterRestart
      ? Array.from({ length: restarts }, (_, i) => ({ definition, id: restartCheckId(i + 1, restarts) }))
      : [{ definition, id: definition.id }],
  );
}
