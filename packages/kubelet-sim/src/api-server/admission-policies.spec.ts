import { ApiError } from './api-errors';
import { createObjectStore } from './object-store';

// ValidatingAdmissionPolicies stored in kubelet-sim's API server are evaluated on every create and update of
// the resources they match, with @bufbuild/cel, and deny as kube-apiserver does.

const policy = (spec: Record<string, unknown>) => ({
  metadata: { name: 'claims-need-config' },
  spec: {
    matchConstraints: {
      resourceRules: [
        {
          apiGroups: ['resource.k8s.io'],
          apiVersions: ['*'],
          operations: ['CREATE', 'UPDATE'],
          resources: ['resourceclaims', 'resourceclaimtemplates'],
        },
      ],
    },
    ...spec,
  },
});
const binding = {
  metadata: { name: 'claims-need-config' },
  spec: { policyName: 'claims-need-config', validationActions: ['Deny'] },
};
const claim = (name: string, count: number) => ({
  metadata: { name, namespace: 'default' },
  spec: { devices: { requests: [{ name: 'r', exactly: { deviceClassName: 'gpu.kdp.dev', count } }] } },
});
const refusal = (fn: () => unknown): ApiError => {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('admitted');
};

describe('ValidatingAdmissionPolicy in kubelet-sim’s API server', () => {
  const counted = policy({
    variables: [{ name: 'requests', expression: 'object.spec.devices.requests' }],
    validations: [
      {
        expression: 'variables.requests.all(r, r.exactly.count <= 2)',
        messageExpression: "'count ' + string(variables.requests[0].exactly.count) + ' is more than 2'",
      },
    ],
  });

  it('denies a create its validation refuses with the message, 422 Invalid, as kube-apiserver words it', () => {
    const store = createObjectStore();
    store.create('validatingadmissionpolicies', counted as never);
    store.create('validatingadmissionpolicybindings', binding as never);
    store.create('resourceclaims', claim('small', 2) as never, 'default');
    const error = refusal(() => store.create('resourceclaims', claim('big', 3) as never, 'default'));
    expect(error.code).toBe(422);
    expect(error.status.reason).toBe('Invalid');
    expect(error.message).toBe(
      'resourceclaims.resource.k8s.io "big" is forbidden: ValidatingAdmissionPolicy \'claims-need-config\' with ' +
        "binding 'claims-need-config' denied request: count 3 is more than 2",
    );
    expect(() => store.list('resourceclaims').items.map((c) => c.metadata.name)).not.toThrow();
    expect(store.list('resourceclaims').items.map((c) => c.metadata.name)).toEqual(['small']);
  });

  it('denies an update too, and a validation’s reason sets the code (Forbidden: 403)', () => {
    const store = createObjectStore();
    const forbidding = policy({
      validations: [
        {
          expression: 'object.spec.devices.requests.all(r, r.exactly.count <= 2)',
          message: 'too many',
          reason: 'Forbidden',
        },
      ],
    });
    store.create('resourceclaims', claim('c', 5) as never, 'default'); // before the policy
    store.create('validatingadmissionpolicies', forbidding as never);
    store.create('validatingadmissionpolicybindings', binding as never);
    const stored = store.get('resourceclaims', 'c', 'default');
    const error = refusal(() =>
      store.update('resourceclaims', {
        ...claim('c', 5),
        metadata: { ...stored.metadata, labels: { a: 'b' } },
      } as never),
    );
    expect(error.code).toBe(403);
    expect(error.message).toContain('denied request: too many');
  });

  it('needs a binding, and leaves resources its rules do not match alone', () => {
    const store = createObjectStore();
    store.create('validatingadmissionpolicies', counted as never);
    store.create('resourceclaims', claim('unbound', 9) as never, 'default');
    store.create('validatingadmissionpolicybindings', binding as never);
    store.create('deviceclasses', { metadata: { name: 'gpu.kdp.dev' }, spec: {} } as never);
    expect(store.list('resourceclaims').items).toHaveLength(1);
  });

  it('denies under failurePolicy Fail when an expression fails to evaluate, admits under Ignore', () => {
    const failing = (failurePolicy: string) =>
      policy({ failurePolicy, validations: [{ expression: 'object.spec.nothing.here == 1' }] });
    const store = createObjectStore();
    store.create('validatingadmissionpolicies', failing('Fail') as never);
    store.create('validatingadmissionpolicybindings', binding as never);
    expect(refusal(() => store.create('resourceclaims', claim('a', 1) as never, 'default')).code).toBe(422);
    const ignoring = store.get('validatingadmissionpolicies', 'claims-need-config');
    store.update('validatingadmissionpolicies', {
      ...failing('Ignore'),
      metadata: ignoring.metadata,
    } as never);
    store.create('resourceclaims', claim('a', 1) as never, 'default');
  });

  it('refuses a policy whose CEL does not compile, and what it would not evaluate', () => {
    const store = createObjectStore();
    const broken = refusal(() =>
      store.create(
        'validatingadmissionpolicies',
        policy({ validations: [{ expression: 'object.spec.?devices' }] }) as never,
      ),
    );
    expect(broken.code).toBe(422);
    expect(broken.message).toContain('spec.validations[0].expression');
    const selector = refusal(() =>
      store.create('validatingadmissionpolicybindings', {
        ...binding,
        spec: { ...binding.spec, validationActions: ['Warn'] },
      } as never),
    );
    expect(selector.message).toContain('spec.validationActions[0]');
  });
});
