import { celEnv, isCelError, parse, plan } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import type { ClaimConfigKind } from '@kdp/core';
import { claimConfigPolicy } from './claim-config-policy';
import { ConfigFieldError, createClaimConfigDecoder } from './decode-claim-config';

// One schema, two outputs: the driver's strict decoder and its ValidatingAdmissionPolicy's CEL must take and refuse
// the same parameters, with the same first message. The CEL runs on @bufbuild/cel, as the playground's API server.

const kind: ClaimConfigKind = {
  apiVersion: 'example.kdp.dev/v1alpha1',
  kind: 'ExampleConfig',
  schema: {
    type: 'object',
    required: ['mode'],
    fields: {
      mode: { type: 'string', enum: ['Fast', 'Slow'] },
      name: { type: 'string', pattern: '^[a-z]+$', maxLength: 8 },
      count: { type: 'integer', minimum: 1, maximum: 4 },
      enabled: { type: 'boolean' },
      replicas: { type: 'refused', message: 'not supported under DRA; request capacity instead' },
      sharing: {
        type: 'object',
        fields: {
          timeSlicing: { type: 'object', fields: { interval: { type: 'string', enum: ['Short', 'Long'] } } },
        },
      },
      env: {
        type: 'stringMap',
        keyPattern: '^EX_[A-Z0-9_]+$',
        reservedKeys: ['EX_DEVICES'],
        reservedMessage: 'set by the driver',
      },
      tags: { type: 'stringList', items: { type: 'string', pattern: '^[a-z]+$' }, maxItems: 2 },
    },
  },
};
const other: ClaimConfigKind = {
  apiVersion: 'example.kdp.dev/v1alpha1',
  kind: 'OtherConfig',
  schema: { type: 'object', fields: {} },
};
const driver = 'example.kdp.dev';
const decode = createClaimConfigDecoder([kind, other]);
const [policy] = claimConfigPolicy(driver, [kind, other]);
const env = celEnv({ funcs: [...strings] });

/** What the decoder says of `parameters`: undefined when taken, else `<path>: <reason>`. */
function decoderSays(parameters: unknown): string | undefined {
  try {
    decode(parameters);
    return undefined;
  } catch (error) {
    if (!(error instanceof ConfigFieldError)) throw error;
    return `spec.devices.config[*].opaque.parameters${error.path === '' ? '' : `.${error.path}`}: ${error.reason}`;
  }
}

/** Integers as CEL ints, as kube-apiserver hands JSON to CEL. */
const celJson = (value: unknown): unknown =>
  typeof value === 'number' && Number.isInteger(value)
    ? BigInt(value)
    : Array.isArray(value)
      ? value.map(celJson)
      : typeof value === 'object' && value !== null
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, celJson(v)]))
        : value;

/** What the policy says of a claim with one config entry of `parameters`: undefined when admitted, else its message. */
function policySays(parameters: unknown, opaqueDriver = driver): string | undefined {
  const spec = policy?.spec as {
    variables: { name: string; expression: string }[];
    validations: { expression: string; messageExpression: string }[];
  };
  const object = celJson({
    spec: { devices: { requests: [], config: [{ opaque: { driver: opaqueDriver, parameters } }] } },
  });
  const variables: Record<string, unknown> = {};
  const run = (expression: string): unknown => {
    const result = plan(env, parse(expression))({ object, variables } as never);
    if (isCelError(result)) throw new Error(`${expression}: ${result.message}`);
    return result;
  };
  for (const variable of spec.variables) variables[variable.name] = run(variable.expression);
  for (const validation of spec.validations)
    if (run(validation.expression) !== true) return String(run(validation.messageExpression));
  return undefined;
}

const valid = { apiVersion: kind.apiVersion, kind: kind.kind, mode: 'Fast' };
const cases: [string, unknown][] = [
  [
    'a valid configuration',
    { ...valid, name: 'abc', count: 2, enabled: true, tags: ['a'], env: { EX_A: '1' } },
  ],
  ['another kind of the driver', { apiVersion: other.apiVersion, kind: other.kind }],
  ['an unknown nested field', { ...valid, sharing: { timeSlicing: { intervl: 'Short' } } }],
  ['an unknown top-level field', { ...valid, modes: 'Fast' }],
  ['a missing required field', { apiVersion: kind.apiVersion, kind: kind.kind }],
  ['an unknown kind', { apiVersion: kind.apiVersion, kind: 'GpuConfig', mode: 'Fast' }],
  ['an unknown apiVersion', { apiVersion: 'example.kdp.dev/v1', kind: kind.kind, mode: 'Fast' }],
  ['no apiVersion', { kind: kind.kind }],
  ['parameters that are not an object', 'Fast'],
  ['a value not in the enum', { ...valid, mode: 'Medium' }],
  ['a nested value not in the enum', { ...valid, sharing: { timeSlicing: { interval: 'Medium' } } }],
  ['a string of the wrong type', { ...valid, name: 3 }],
  ['a string too long', { ...valid, name: 'abcdefghi' }],
  ['a string off its pattern', { ...valid, name: 'ABC' }],
  ['an integer too small', { ...valid, count: 0 }],
  ['an integer too large', { ...valid, count: 5 }],
  ['a fraction for an integer', { ...valid, count: 1.5 }],
  ['a boolean of the wrong type', { ...valid, enabled: 'yes' }],
  ['a refused field', { ...valid, replicas: 4 }],
  ['an object of the wrong type', { ...valid, sharing: 'on' }],
  ['an env name off the pattern', { ...valid, env: { PATH: '/bin' } }],
  ['a reserved env name', { ...valid, env: { EX_DEVICES: 'all' } }],
  ['an env value not a string', { ...valid, env: { EX_A: 1 } }],
  ['a list too long', { ...valid, tags: ['a', 'b', 'c'] }],
  ['a list item off its pattern', { ...valid, tags: ['A'] }],
];

describe('a driver’s claim configuration: the strict decoder and the generated admission policy agree', () => {
  it.each(cases)('%s', (_, parameters) => {
    // The policy cannot name a list item's index: `tags[*]` where the decoder says `tags[0]`.
    expect(policySays(parameters)).toBe(decoderSays(parameters)?.replace(/\[\d+\]/g, '[*]'));
  });

  it('names the unknown field’s path, as the brief’s example', () => {
    expect(decoderSays({ ...valid, sharing: { timeSlicing: { intervl: 'Short' } } })).toBe(
      'spec.devices.config[*].opaque.parameters.sharing.timeSlicing.intervl: unknown field',
    );
    expect(decoderSays({ apiVersion: kind.apiVersion, kind: 'GpuConfig' })).toBe(
      'spec.devices.config[*].opaque.parameters.kind: unknown apiVersion/kind; this driver takes ' +
        'example.kdp.dev/v1alpha1 ExampleConfig, example.kdp.dev/v1alpha1 OtherConfig',
    );
  });

  it('leaves other drivers’ configuration alone', () => {
    expect(policySays({ anything: true }, 'other.example.com')).toBeUndefined();
  });

  it('is a policy and a Deny binding on claims and claim templates, CREATE and UPDATE', () => {
    const [vap, binding] = claimConfigPolicy(driver, [kind]);
    expect(vap?.metadata.name).toBe('example.kdp.dev-claim-config');
    expect((vap?.spec['matchConstraints'] as { resourceRules: unknown[] }).resourceRules).toEqual([
      {
        apiGroups: ['resource.k8s.io'],
        apiVersions: ['*'],
        operations: ['CREATE', 'UPDATE'],
        resources: ['resourceclaims', 'resourceclaimtemplates'],
      },
    ]);
    expect(binding?.spec).toEqual({
      policyName: 'example.kdp.dev-claim-config',
      validationActions: ['Deny'],
    });
    // No optional syntax: @bufbuild/cel (and kube-apiserver before 1.29) lack it.
    expect(JSON.stringify(vap)).not.toMatch(/\?\.|\[\?/);
  });
});
