import type { DraApiServerConnection } from '../../dra/dra-api-client';
import type { ConformanceCheck } from '../conformance-check';

/** What {@link DraConformanceOptions.onReady} is told once the suite's kubelet and API server are up. */
export interface DraConformanceReady {
  /** The API server the driver must publish to and read claims from. */
  readonly apiServer: DraApiServerConnection;
  readonly nodeName: string;
}

/** Options of `runDraConformance`. */
export interface DraConformanceOptions {
  /** The driver name to check (GetInfo `name`, `spec.driver` of its slices). */
  readonly driver: string;
  /** The plugin-watcher directory the driver registers in. */
  readonly pluginsRegistryDir: string;
  /** An API server to use; absent, the suite starts kubelet-sim's own (`createApiServer`) with the node in it. */
  readonly apiServer?: DraApiServerConnection;
  /** Port of the built-in API server on 127.0.0.1 (default any free port). */
  readonly apiServerPort?: number;
  /** This node's name (default `kubelet-sim-node`). */
  readonly nodeName?: string;
  /** Namespace of the ResourceClaim the suite creates (default `default`). */
  readonly namespace?: string;
  /** The CDI directory the driver was given; absent, `cdi-spec` is skipped. */
  readonly cdiDir?: string;
  /**
   * The directory standing for /dev where the scheduler checks' containers find their CDI device nodes
   * (default `/dev`); only with the suite's own API server.
   */
  readonly devRoot?: string;
  /** The simulated kubelet's own directory (kubelet.sock, checkpoints); default a temporary directory. */
  readonly dir?: string;
  /** How long to wait for the driver's registration (default 30 s). */
  readonly registrationTimeoutMs?: number;
  /** How long the driver has to publish complete pools, at start and after a kubelet restart (default 10 s). */
  readonly publishTimeoutMs?: number;
  /** How long another slow step (a connection, a re-prepare, a health message) is waited for (default 10 s). */
  readonly patienceMs?: number;
  /** NodePrepareResources / NodeUnprepareResources deadline (default the kubelet's 45 s). */
  readonly callTimeoutMs?: number;
  /**
   * Restarts the driver (tests pass one; the CLI has none, so `plugin-restart` is skipped there). It resolves
   * once the restart was started; the suite then waits for the driver to come back.
   */
  readonly restartPlugin?: () => Promise<void>;
  /**
   * Reboots the node as far as the driver can tell (tests pass one; the CLI cannot, so `node-reboot` is skipped
   * there): stop the driver, give its procfs a new boot ID, empty the CDI directory (a tmpfs /var/run/cdi is gone
   * after a reboot; the driver's checkpoint stays) and start the driver again. The suite then restarts its
   * kubelet (its checkpoint kept, as on disk), waits for the driver and prepares the claim again.
   */
  readonly rebootNode?: (() => Promise<void>) | undefined;
  /** Every warning of a recommended check becomes a failure. */
  readonly strict?: boolean;
  /** Called with each check as it completes, for live output. */
  readonly onCheck?: (check: ConformanceCheck) => void;
  /**
   * Called once the API server and the simulated kubelet run (and the kubelet deleted the node's slices, as it
   * does at start), before the suite waits for the driver: start the driver here.
   */
  readonly onReady?: (ready: DraConformanceReady) => void | Promise<void>;
}
