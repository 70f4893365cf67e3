import { fieldSchemas, pruneUnknownFields } from './field-schemas';
import { humanDuration } from './table';

describe('pruneUnknownFields', () => {
  it('drops and names undeclared fields at any depth, keeping maps and unmodelled subtrees whole', () => {
    const claim = {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceClaim',
      metadata: { name: 'c', labels: { any: 'label' }, extra: 1 },
      spec: {
        devices: {
          requests: [
            { name: 'a', exactly: { deviceClassName: 'g', adminAccess: true, count: 1 } },
            { name: 'b', firstAvailable: [{ name: 'x', deviceClassName: 'g', adminAccess: true }] },
          ],
          config: [{ opaque: { driver: 'd', parameters: { whatever: { deep: 1 } } } }],
        },
      },
      status: { anything: true },
    };
    expect(pruneUnknownFields(claim, fieldSchemas['resourceclaims'] ?? 'any')).toEqual([
      'metadata.extra',
      'spec.devices.requests[1].firstAvailable[0].adminAccess',
    ]);
    expect(claim.metadata).toEqual({ name: 'c', labels: { any: 'label' } });
    expect(claim.spec.devices.requests[0]).toEqual({
      name: 'a',
      exactly: { deviceClassName: 'g', adminAccess: true, count: 1 },
    });
    expect(claim.spec.devices.config[0]?.opaque.parameters).toEqual({ whatever: { deep: 1 } });
    expect(claim.status).toEqual({ anything: true });
  });

  it('knows a v1 slice device and a pod container', () => {
    const slice = {
      spec: {
        devices: [
          { name: 'd', basic: {}, attributes: {}, consumesCounters: [{ counterSet: 's', counters: {} }] },
        ],
      },
    };
    expect(pruneUnknownFields(slice, fieldSchemas['resourceslices'] ?? 'any')).toEqual([
      'spec.devices[0].basic',
    ]);
    const pod = {
      spec: {
        containers: [
          { name: 'c', image: 'i', resources: { claims: [{ name: 'x', request: 'r', extra: 1 }] } },
        ],
      },
    };
    expect(pruneUnknownFields(pod, fieldSchemas['pods'] ?? 'any')).toEqual([
      'spec.containers[0].resources.claims[0].extra',
    ]);
  });
});

describe('humanDuration', () => {
  it('words ages as kubectl prints them', () => {
    const s = 1000;
    expect(
      [
        0,
        59 * s,
        119 * s,
        150 * s,
        600 * s,
        3 * 3600 * s + 5 * 60 * s,
        30 * 3600 * s,
        50 * 3600 * s,
        10 * 86400 * s,
        800 * 86400 * s,
      ].map(humanDuration),
    ).toEqual(['0s', '59s', '119s', '2m30s', '10m', '3h5m', '30h', '2d2h', '10d', '2y']);
  });
});
