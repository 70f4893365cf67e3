import type { KubeObject } from '../../api-server/object-store';

/** One request of a claim spec: `exactly` (selector, count, admin access) or a `firstAvailable` list. */
export interface SchedulerCheckRequest {
  readonly name: string;
  /** CEL selectors of an `exactly` request, or the subrequests' of a `firstAvailable` list in order. */
  readonly selectors?: readonly string[];
  readonly firstAvailable?: ReadonlyArray<{ readonly name: string; readonly selector?: string }>;
  readonly adminAccess?: boolean;
}

const celSelectors = (expressions: readonly string[]) =>
  expressions.map((expression) => ({ cel: { expression } }));

/** The `spec.devices` of a claim (or a template's `spec.spec`) of the driver's DeviceClass, with its `config` entries. */
export function claimDevicesSpec(
  deviceClassName: string,
  requests: readonly SchedulerCheckRequest[],
  config?: readonly object[],
) {
  return {
    devices: {
      ...(config === undefined ? {} : { config }),
      requests: requests.map((r) =>
        r.firstAvailable === undefined
          ? {
              name: r.name,
              exactly: {
                deviceClassName,
                selectors: celSelectors(r.selectors ?? []),
                ...(r.adminAccess === true ? { adminAccess: true } : {}),
              },
            }
          : {
              name: r.name,
              firstAvailable: r.firstAvailable.map((s) => ({
                name: s.name,
                deviceClassName,
                selectors: celSelectors(s.selector === undefined ? [] : [s.selector]),
              })),
            },
      ),
    },
  };
}

/** A DeviceClass named after the driver, selecting its devices by CEL. */
export const deviceClassObject = (driver: string): KubeObject =>
  ({
    metadata: { name: driver },
    spec: { selectors: [{ cel: { expression: `device.driver == "${driver}"` } }] },
  }) as KubeObject;

/** A pod whose claim entry `claim` names a ResourceClaim or a template; each container names one request. */
export function podObject(
  name: string,
  claim: { readonly resourceClaimName?: string; readonly resourceClaimTemplateName?: string },
  containerRequests: readonly (string | undefined)[],
): KubeObject {
  return {
    metadata: { name },
    spec: {
      resourceClaims: [{ name: 'devices', ...claim }],
      containers: containerRequests.map((request, i) => ({
        name: request ?? `c${String(i)}`,
        image: 'registry.k8s.io/pause:3.10',
        resources: { claims: [{ name: 'devices', ...(request === undefined ? {} : { request }) }] },
      })),
    },
  } as KubeObject;
}
