import type { Meta } from './dra-types';

/** A pod toleration (core/v1). */
export interface PodToleration {
  readonly key?: string;
  readonly operator?: 'Exists' | 'Equal';
  readonly value?: string;
  readonly effect?: string;
}

/** A pod condition (core/v1). */
export interface PodCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastProbeTime?: string | null;
  lastTransitionTime?: string;
}

/** The parts of a Pod the scheduler reads and writes. */
export interface Pod {
  readonly metadata: Meta & { readonly creationTimestamp?: string };
  readonly spec: {
    readonly nodeName?: string;
    readonly schedulerName?: string;
    readonly nodeSelector?: Readonly<Record<string, string>>;
    readonly tolerations?: readonly PodToleration[];
    readonly resourceClaims?: readonly {
      readonly name: string;
      readonly resourceClaimName?: string;
      readonly resourceClaimTemplateName?: string;
    }[];
  };
  readonly status?: {
    readonly phase?: string;
    readonly conditions?: readonly PodCondition[];
    readonly resourceClaimStatuses?: readonly {
      readonly name: string;
      readonly resourceClaimName?: string;
    }[];
  };
}

/** A Node (core/v1), as the scheduler reads it. */
export interface Node {
  readonly metadata: Meta;
  readonly spec?: {
    readonly unschedulable?: boolean;
    readonly taints?: readonly { readonly key: string; readonly value?: string; readonly effect: string }[];
  };
  readonly status?: { readonly conditions?: readonly { readonly type: string; readonly status: string }[] };
}

/** A ResourceClaimTemplate. */
export interface ResourceClaimTemplate {
  readonly metadata: Meta;
  readonly spec: { readonly metadata?: Meta; readonly spec: unknown };
}

/** Whether a pod has finished (its claims can be released). */
export const podIsDone = (pod: Pod): boolean =>
  pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
