import type { Clock } from '@kdp/base';
import type { KubeApiAccess } from '../kube/kube-api-access';

/** Something text can be written to (process.stdout, a test buffer). */
export interface TextSink {
  write(text: string): unknown;
}

/** Where SIGTERM, SIGINT and SIGHUP come from (normally `process`). */
export interface ProcessSignals {
  on(event: 'SIGTERM' | 'SIGINT' | 'SIGHUP', listener: () => void): unknown;
  off(event: 'SIGTERM' | 'SIGINT' | 'SIGHUP', listener: () => void): unknown;
}

/** Where a plugin binary talks to the world; every field defaults to the process's own. */
export interface RunIo {
  /** The command line after the program name (default `process.argv.slice(2)`). */
  readonly argv?: readonly string[];
  readonly stdout?: TextSink;
  /** Logs go here too (default process.stderr). */
  readonly stderr?: TextSink;
  /** The one owner of SIGTERM, SIGINT and SIGHUP (default `process`). */
  readonly signals?: ProcessSignals;
  readonly clock?: Clock;
  /** Receives the exit code (default: the process exits with it as soon as the run is over). */
  readonly exit?: (code: number) => void;
  /** Quiet time after a configuration file changed before it is reloaded (default 200 ms). */
  readonly configDebounceMs?: number;
  /** The environment compat layers read (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Where compat layers' default configuration paths are looked up (default `/`; tests use a temp dir). */
  readonly anchorRoot?: string;
  /** The binary's name as invoked, when it is an anchor's (`generic-device-plugin`): started as that anchor. */
  readonly invokedAs?: string;
  /** The API server for `--node-config-label` (default: the pod's in-cluster service account). */
  readonly kubeApi?: KubeApiAccess;
  /** How often the node's labels are read again for `--node-config-label` (default 10 s). */
  readonly nodeLabelIntervalMs?: number;
}
