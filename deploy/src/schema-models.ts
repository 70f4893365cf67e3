import { ValidatingAdmissionPolicy } from 'kubernetes-models/admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy';
import { ValidatingAdmissionPolicyBinding } from 'kubernetes-models/admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding';
import { DaemonSet } from 'kubernetes-models/apps/v1/DaemonSet';
import { ClusterRole } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRole';
import { ClusterRoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRoleBinding';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { Pod } from 'kubernetes-models/v1/Pod';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { PodMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';

/**
 * The Kubernetes version whose OpenAPI schema kubernetes-models 4.5.1 was generated from (its CHANGELOG: 4.5.0
 * "Update schema version to v1.33.0"). 5.x moved to v1.36.0 but is ESM-only and needs Node 22.
 */
export const kubernetesSchemaVersion = 'v1.33.0';

/** One kind kdp's manifests hold: its model (schema validator) and the module and interface naming its type. */
export interface SchemaModel {
  /** Validates with the kind's OpenAPI schema (types, enums, required fields); throws on a violation. */
  validate(object: unknown): void;
  /** The module exporting the kind's TypeScript interface, and the interface's name. */
  readonly typeModule: string;
  readonly typeName: string;
}

function model(
  create: new (data: never) => { validate(): void },
  typeModule: string,
  typeName: string,
): SchemaModel {
  return { validate: (object) => new create(object as never).validate(), typeModule, typeName };
}

const models: Record<string, SchemaModel> = {
  'apps/v1/DaemonSet': model(DaemonSet, 'kubernetes-models/apps/v1/DaemonSet', 'IDaemonSet'),
  'v1/ConfigMap': model(ConfigMap, 'kubernetes-models/v1/ConfigMap', 'IConfigMap'),
  'v1/Namespace': model(Namespace, 'kubernetes-models/v1/Namespace', 'INamespace'),
  'v1/Pod': model(Pod, 'kubernetes-models/v1/Pod', 'IPod'),
  'rbac.authorization.k8s.io/v1/ClusterRole': model(
    ClusterRole,
    'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRole',
    'IClusterRole',
  ),
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': model(
    ClusterRoleBinding,
    'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRoleBinding',
    'IClusterRoleBinding',
  ),
  'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy': model(
    ValidatingAdmissionPolicy,
    'kubernetes-models/admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy',
    'IValidatingAdmissionPolicy',
  ),
  'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding': model(
    ValidatingAdmissionPolicyBinding,
    'kubernetes-models/admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding',
    'IValidatingAdmissionPolicyBinding',
  ),
  'v1/Service': model(Service, 'kubernetes-models/v1/Service', 'IService'),
  'v1/ServiceAccount': model(ServiceAccount, 'kubernetes-models/v1/ServiceAccount', 'IServiceAccount'),
  'monitoring.coreos.com/v1/PodMonitor': model(
    PodMonitor,
    '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor',
    'IPodMonitor',
  ),
  'monitoring.coreos.com/v1/ServiceMonitor': model(
    ServiceMonitor,
    '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor',
    'IServiceMonitor',
  ),
};

/** The schema model of an apiVersion and kind, or undefined when kdp's tests know no schema for it. */
export function schemaModel(apiVersion: string, kind: string): SchemaModel | undefined {
  return models[`${apiVersion}/${kind}`];
}
