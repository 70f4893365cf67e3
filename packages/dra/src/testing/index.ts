/**
 * Test helpers for DRA drivers built with `createDraServeMode`: a node with the kubelet's directories, a boot ID
 * and a kubeconfig, running a plugin's DRA driver in the test's process, with the restart and the reboot that
 * `kubelet-sim check --dra` (`runDraConformance`) asks for.
 *
 * @packageDocumentation
 * @module @kdp/dra/testing
 */

export { createDraTestNode } from './create-dra-test-node';
export type {
  DraTestNode,
  DraTestNodeOptions,
  DraTestNodeReady,
  DraTestNodeSuite,
} from './create-dra-test-node';
export type { TestApiServer } from './write-kubeconfig';
export { createPlaygroundDriverTest } from './create-playground-driver-test';
export type {
  PlaygroundDriverTest,
  PlaygroundDriverTestOptions,
  PlaygroundMachine,
} from './create-playground-driver-test';
export { startPlaygroundDriver } from './start-playground-driver';
export type { PlaygroundDriver, PlaygroundDriverOptions } from './start-playground-driver';
export {
  claimManifest,
  claimRequest,
  deviceClassManifest,
  kubectl,
  podManifest,
} from './playground-pod-checks';
