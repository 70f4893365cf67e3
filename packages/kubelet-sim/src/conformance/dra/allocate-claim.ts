import type { PublishedDevice } from './slice-checks';
import type { ApiObject, DraCheckApi } from './dra-check-api';

/** Creates a ResourceClaim, then writes its status as the scheduler would: allocated `device`, reserved for `pod`. */
export async function allocateClaim(
  api: DraCheckApi,
  target: {
    namespace: string;
    claimName: string;
    driver: string;
    nodeName: string;
    device: PublishedDevice;
    pod: { name: string; uid: string };
  },
): Promise<ApiObject> {
  const request = 'device';
  const created = await api.createClaim(target.namespace, {
    metadata: { name: target.claimName, namespace: target.namespace },
    spec: {
      devices: {
        requests: [
          {
            name: request,
            exactly: { deviceClassName: target.driver, allocationMode: 'ExactCount', count: 1 },
          },
        ],
      },
    },
  });
  return api.updateClaimStatus(target.namespace, {
    ...created,
    status: {
      allocation: {
        devices: {
          results: [
            { request, driver: target.driver, pool: target.device.pool, device: target.device.device },
          ],
        },
        nodeSelector: {
          nodeSelectorTerms: [
            { matchFields: [{ key: 'metadata.name', operator: 'In', values: [target.nodeName] }] },
          ],
        },
      },
      reservedFor: [{ resource: 'pods', name: target.pod.name, uid: target.pod.uid }],
    },
  });
}
