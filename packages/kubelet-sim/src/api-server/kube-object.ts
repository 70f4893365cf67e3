/** A stored API object: any JSON object with `metadata`. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name?: string | undefined;
    generateName?: string | undefined;
    namespace?: string | undefined;
    uid?: string | undefined;
    resourceVersion?: string | undefined;
    creationTimestamp?: string | undefined;
    labels?: Record<string, string> | undefined;
    ownerReferences?: unknown[] | undefined;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}
