import { createObjectStore } from './object-store';
import { ApiError } from './api-errors';

const causesOf = (f: () => unknown): Array<{ field: string; message: string }> => {
  try {
    f();
  } catch (err) {
    if (err instanceof ApiError)
      return (err.status.details?.causes ?? []).map(({ field, message }) => ({ field, message }));
    throw err;
  }
  throw new Error('expected a 422');
};

const claimSpec = (requests: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  devices: { requests, ...extra },
});

describe('validation of the kinds kubectl writes', () => {
  const store = createObjectStore({
    validateCel: (e) =>
      e.includes('(') && !e.includes(')')
        ? `compilation failed: ERROR: <input>:1:${e.length}: Syntax error`
        : undefined,
  });

  it('wants pods with named, imaged containers whose claims name a pod claim with one source', () => {
    expect(
      causesOf(() =>
        store.create('pods', {
          metadata: { name: 'p' },
          spec: {
            resourceClaims: [
              { name: 'gpu', resourceClaimName: 'c', resourceClaimTemplateName: 't' },
              { name: 'none' },
            ],
            containers: [
              { name: 'a', resources: { claims: [{ name: 'gpu', request: 'Bad' }, { name: 'nic' }] } },
            ],
          },
        }),
      ),
    ).toEqual([
      {
        field: 'spec.resourceClaims[0]',
        message: expect.stringContaining(
          'at most one of `resourceClaimName` or `resourceClaimTemplateName` may be set',
        ),
      },
      {
        field: 'spec.resourceClaims[1]',
        message: 'Required value: must specify one of: `resourceClaimName`, `resourceClaimTemplateName`',
      },
      { field: 'spec.containers[0].image', message: 'Required value' },
      {
        field: 'spec.containers[0].resources.claims[0].request',
        message: expect.stringContaining('Invalid value: "Bad"'),
      },
      { field: 'spec.containers[0].resources.claims[1].name', message: 'Not found: "nic"' },
    ]);
    expect(causesOf(() => store.create('pods', { metadata: { name: 'q' }, spec: {} }))).toEqual([
      { field: 'spec.containers', message: 'Required value' },
    ]);
  });

  it('validates a template spec as a claim spec: modes, counts, subrequests, constraints, config, tolerations', () => {
    expect(
      causesOf(() =>
        store.create('resourceclaimtemplates', {
          metadata: { name: 't' },
          spec: {
            spec: claimSpec(
              [
                { name: 'a', exactly: { deviceClassName: 'gpu', allocationMode: 'All', count: 2 } },
                {
                  name: 'b',
                  exactly: {
                    deviceClassName: 'gpu',
                    allocationMode: 'Some',
                    tolerations: [{ key: 'k', operator: 'Maybe' }],
                  },
                },
                { name: 'c', firstAvailable: [{ name: 'x', deviceClassName: 'gpu', count: 0 }] },
              ],
              {
                constraints: [{ requests: ['a', 'c/x', 'zz'], matchAttribute: 'gpu.example.com/model' }],
                config: [{ requests: ['nope'], opaque: { driver: 'gpu.example.com', parameters: {} } }],
              },
            ),
          },
        }),
      ),
    ).toEqual([
      {
        field: 'spec.spec.devices.requests[0].exactly.count',
        message: "Invalid value: 2: must not be specified when allocationMode is 'All'",
      },
      {
        field: 'spec.spec.devices.requests[1].exactly.allocationMode',
        message: 'Unsupported value: "Some": supported values: "All", "ExactCount"',
      },
      {
        field: 'spec.spec.devices.requests[1].exactly.tolerations[0].operator',
        message: 'Unsupported value: "Maybe": supported values: "Equal", "Exists"',
      },
      {
        field: 'spec.spec.devices.requests[2].firstAvailable[0].count',
        message: 'Invalid value: 0: must be greater than zero',
      },
      {
        field: 'spec.spec.devices.constraints[0].requests[2]',
        message: expect.stringContaining('must be the name of a request in the claim'),
      },
      {
        field: 'spec.spec.devices.config[0].requests[0]',
        message: expect.stringContaining('Invalid value: "nope"'),
      },
    ]);
  });

  it('reports the CEL compiler message at the selector of a class, a claim request and a subrequest', () => {
    const bad = [{ cel: { expression: 'device.driver.startsWith(' } }];
    const message =
      'Invalid value: "device.driver.startsWith(": compilation failed: ERROR: <input>:1:25: Syntax error';
    expect(
      causesOf(() => store.create('deviceclasses', { metadata: { name: 'g' }, spec: { selectors: bad } })),
    ).toEqual([{ field: 'spec.selectors[0].cel.expression', message }]);
    expect(
      causesOf(() =>
        store.create('resourceclaims', {
          metadata: { name: 'c' },
          spec: claimSpec([
            { name: 'a', exactly: { deviceClassName: 'g', selectors: bad } },
            { name: 'b', firstAvailable: [{ name: 'x', deviceClassName: 'g', selectors: bad }] },
          ]),
        }),
      ),
    ).toEqual([
      { field: 'spec.devices.requests[0].exactly.selectors[0].cel.expression', message },
      { field: 'spec.devices.requests[1].firstAvailable[0].selectors[0].cel.expression', message },
    ]);
    expect(
      store.create('deviceclasses', {
        metadata: { name: 'ok' },
        spec: { selectors: [{ cel: { expression: 'true' } }] },
      }).metadata.name,
    ).toBe('ok');
  });

  it('wants an event to say what it is about, in its namespace, Normal or Warning', () => {
    expect(
      causesOf(() =>
        store.create('events', {
          metadata: { name: 'e' },
          involvedObject: { namespace: 'other' },
          type: 'Odd',
        }),
      ),
    ).toEqual([
      { field: 'involvedObject.kind', message: 'Required value' },
      {
        field: 'involvedObject.namespace',
        message: 'Invalid value: "other": does not match event.namespace',
      },
      { field: 'type', message: 'Unsupported value: "Odd": supported values: "Normal", "Warning"' },
    ]);
  });
});
