import { createObjectStore } from './object-store';
import { podQosClass } from './pod-create-status';
import type { KubeObject } from './resource-types';

const pod = (...resources: Array<Record<string, unknown> | undefined>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p' },
  spec: {
    containers: resources.map((r, i) => ({
      name: `c${i}`,
      image: 'registry.k8s.io/pause:3.10',
      ...(r === undefined ? {} : { resources: r }),
    })),
  },
});

describe('a new pod', () => {
  it('is Pending with its QoS class, whatever status the client sent', () => {
    const store = createObjectStore();
    const created = store.create(
      'pods',
      { ...pod({ requests: { cpu: '100m' } }), status: { phase: 'Running', podIP: '10.0.0.1' } },
      'default',
    );
    expect(created['status']).toEqual({ phase: 'Pending', qosClass: 'Burstable' });
    expect(store.get('pods', 'p', 'default')['status']).toEqual({ phase: 'Pending', qosClass: 'Burstable' });
  });

  it.each([
    ['no requests or limits', pod(undefined, { requests: { 'example.com/gpu': '1' } }), 'BestEffort'],
    ['zero requests', pod({ requests: { cpu: '0', memory: '0Mi' } }), 'BestEffort'],
    ['limits only (requests default to them)', pod({ limits: { cpu: '1', memory: '1Gi' } }), 'Guaranteed'],
    [
      'requests equal to limits in every container',
      pod(
        { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } },
        { limits: { cpu: '500m', memory: '64Mi' } },
      ),
      'Guaranteed',
    ],
    [
      'requests equal to limits in other units',
      pod({ requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1000m', memory: '1024Mi' } }),
      'Guaranteed',
    ],
    [
      'a request below its limit',
      pod({ requests: { cpu: '500m' }, limits: { cpu: '1', memory: '1Gi' } }),
      'Burstable',
    ],
    ['a limit on CPU only', pod({ limits: { cpu: '1' } }), 'Burstable'],
    ['one container without limits', pod({ limits: { cpu: '1', memory: '1Gi' } }, undefined), 'Burstable'],
  ])('with %s', (_what, object, qos) => {
    expect(podQosClass(object)).toBe(qos);
  });
});
