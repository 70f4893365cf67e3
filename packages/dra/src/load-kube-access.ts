// The kubeconfig / service-account loader is @kdp/core's (one Kubernetes API client for every kdp package);
// this module keeps the name where the DRA serve mode and this package's users import it from.
export { loadKubeAccess } from '@kdp/core';
export type { LoadKubeAccessOptions } from '@kdp/core';
