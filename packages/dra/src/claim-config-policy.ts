import type { ClaimConfigKind } from '@kdp/core';
import { celString, claimConfigValidations } from './claim-config-cel';

/** A ValidatingAdmissionPolicy or its binding, as plain JSON (`admissionregistration.k8s.io/v1`). */
export interface AdmissionObject {
  readonly apiVersion: 'admissionregistration.k8s.io/v1';
  readonly kind: 'ValidatingAdmissionPolicy' | 'ValidatingAdmissionPolicyBinding';
  readonly metadata: { readonly name: string };
  readonly spec: Readonly<Record<string, unknown>>;
}

/** The policy's name for a driver: `<driver>-claim-config` (`gpu.kdp.dev-claim-config`). */
export const claimConfigPolicyName = (driver: string): string => `${driver}-claim-config`;

/**
 * A driver's ValidatingAdmissionPolicy and its binding (Deny), generated from its configuration kinds: on every
 * CREATE and UPDATE of a ResourceClaim or ResourceClaimTemplate, each `spec.devices.config[].opaque` whose driver
 * is `driver` must hold parameters of one of `kinds`, exactly as the driver's decoder takes them, so that a bad
 * configuration is refused at `kubectl create` with the decoder's message rather than at pod start. Plain CEL
 * (`has()`, `.all()`, `.filter()`), no optional syntax.
 */
export function claimConfigPolicy(driver: string, kinds: readonly ClaimConfigKind[]): AdmissionObject[] {
  const name = claimConfigPolicyName(driver);
  const validations = claimConfigValidations(kinds, 'variables.parameters', 'variables.prefix');
  const policy: AdmissionObject = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: {
      failurePolicy: 'Fail',
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
      variables: [
        // A template's claim spec is under spec.spec.
        {
          name: 'devices',
          expression:
            'has(object.spec.spec) ? (has(object.spec.spec.devices) ? object.spec.spec.devices : {}) : ' +
            '(has(object.spec.devices) ? object.spec.devices : {})',
        },
        {
          name: 'prefix',
          expression: `(has(object.spec.spec) ? 'spec.spec' : 'spec') + ${celString(`.devices.config[*].opaque.parameters`)}`,
        },
        {
          name: 'parameters',
          expression:
            `has(variables.devices.config) ? variables.devices.config.filter(c, has(c.opaque) && ` +
            `c.opaque.driver == ${celString(driver)} && has(c.opaque.parameters)).map(c, c.opaque.parameters) : []`,
        },
      ],
      validations: validations.map((v) => ({ ...v, reason: 'Invalid' })),
    },
  };
  const binding: AdmissionObject = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name },
    spec: { policyName: name, validationActions: ['Deny'] },
  };
  return [policy, binding];
}
