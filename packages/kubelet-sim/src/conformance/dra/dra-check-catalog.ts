import type { CheckDefinition } from '../check-catalog';

/**
 * The sections of `shared/reference/dra.md` the DRA checks enforce, as they are cited in reasons
 * (`(required: dra.md#registration)`).
 */
export const draRules = {
  registration: 'dra.md#registration',
  plugin: 'dra.md#draplugin',
  health: 'dra.md#health',
  slices: 'dra.md#control-plane',
  users: 'dra.md#users-report',
  scheduler: 'dra.md#scheduler-and-kubelet',
} as const;

/** A check definition of one level: `level(...)('id', 'title', ...rules)`. */
const ofLevel =
  (level: CheckDefinition['level']) =>
  (id: string, title: string, ...rules: string[]): CheckDefinition => ({ id, title, level, rules });
const required = ofLevel('required');
const recommended = ofLevel('recommended');

const { registration, plugin, health, slices, users, scheduler } = draRules;

/**
 * Every check of the DRA suite, in the order it runs them. Required checks cover what a kubelet or the
 * scheduler punishes (a refused registration, a pod that never starts, a device handed out twice);
 * recommended ones what the upstream helper does and users ask for.
 */
export const draCheckCatalog = {
  registers: required(
    'dra-registers',
    'the kubelet accepts the registration through the plugin watcher',
    registration,
  ),
  pluginInfo: required(
    'plugin-info',
    'GetInfo: type DRAPlugin, name = the driver (a DNS subdomain of at most 63 characters), endpoint absolute',
    registration,
  ),
  supportedServices: required('supported-services', 'supported_versions lists v1.DRAPlugin', registration),
  serviceOrder: recommended(
    'service-order',
    'supported_versions lists each service once, newest first (v1 before v1beta1, v1 before v1alpha1)',
    registration,
  ),
  registrationStatus: required('registration-status', 'NotifyRegistrationStatus is answered', registration),
  endpointServing: required(
    'endpoint-serving',
    "the kubelet's connection to the endpoint comes up",
    registration,
  ),
  publishes: required('publishes-slices', 'ResourceSlices for this node appear in the API server', slices),
  slicesValid: required(
    'slices-valid',
    'every slice passes resource.k8s.io/v1 validation, with spec.driver and spec.nodeName of this driver and node',
    slices,
  ),
  poolConsistent: required(
    'pool-consistent',
    "each pool's newest generation has resourceSliceCount slices, device names are unique in the pool, and every " +
      'counter a device consumes is in a counter set of the pool that holds that much',
    slices,
  ),
  sliceSize: required('slice-size', 'at most 128 devices per slice (64 with taints or counters)', slices),
  sliceOwner: recommended('slice-owner', 'each slice has an owner reference to the Node', slices),
  standardAttributes: recommended(
    'standard-attributes',
    'devices with a PCI address carry resource.kubernetes.io/pciBusID and pcieRoot',
    slices,
  ),
  deviceTaints: recommended(
    'device-taints',
    'device taints have a qualified-name key, a label value, effect NoSchedule or NoExecute and a timeAdded',
    slices,
  ),
  sharedCapacity: recommended(
    'shared-capacity',
    'a device with allowMultipleAllocations has capacities whose request policies the API server accepts',
    slices,
  ),
  prepare: required(
    'prepare',
    'NodePrepareResources of an allocated claim returns the allocated device',
    plugin,
  ),
  cdiIds: required('cdi-ids', 'CDI device IDs are fully qualified (vendor.com/class=name)', plugin),
  cdiSpec: recommended(
    'cdi-spec',
    'a CDI spec file in the CDI directory defines every returned CDI device',
    plugin,
    users,
  ),
  prepareIdempotent: required(
    'prepare-idempotent',
    'preparing the same claim again returns the same result',
    plugin,
  ),
  wrongUid: required(
    'wrong-uid',
    'a claim whose UID does not match gets a per-claim error, and the other claims of the call are answered',
    plugin,
  ),
  republish: required(
    'kubelet-restart-republish',
    'after a kubelet restart wipes the slices of the node, the driver publishes them again',
    plugin,
    slices,
  ),
  prepareAfterKubeletRestart: required(
    'kubelet-restart-prepare',
    'after a kubelet restart, preparing the claim again returns the same devices',
    plugin,
    users,
  ),
  pluginRestart: required(
    'plugin-restart',
    'after a driver restart it registers or reconnects, and preparing the claim again returns the same devices',
    plugin,
    users,
  ),
  nodeReboot: required(
    'node-reboot',
    'after a node reboot (new boot ID, CDI directory emptied) the driver registers and publishes again, and ' +
      'preparing the claim again returns the same devices and CDI IDs and writes the CDI specs again',
    plugin,
    users,
  ),
  unprepare: required('unprepare', 'NodeUnprepareResources of the prepared claim succeeds', plugin),
  unprepareUnknown: required(
    'unprepare-unknown',
    'unpreparing an unknown or already unprepared claim succeeds',
    plugin,
  ),
  healthStream: required(
    'health-stream',
    'NodeWatchResources, when a health service is listed, opens and sends a device list',
    health,
  ),
  healthDevices: recommended(
    'health-devices',
    'the health stream lists the published devices, and only them',
    health,
  ),
  schedulerCelSelector: required(
    'scheduler-cel-selector',
    'a pod whose claim selects a device by CEL on one of its attributes runs with that device',
    scheduler,
  ),
  schedulerPrioritizedList: required(
    'scheduler-prioritized-list',
    'with a firstAvailable list, the container naming the request gets the device allocated for the subrequest ' +
      '(the driver answers the base request name)',
    scheduler,
    users,
  ),
  schedulerTwoRequests: required(
    'scheduler-two-requests',
    'two containers naming two requests of one claim each get only their request’s CDI devices',
    scheduler,
    users,
  ),
  schedulerTemplateClaim: required(
    'scheduler-template-claim',
    'a ResourceClaimTemplate: the claim is created for the pod, which runs, and removed with the pod',
    scheduler,
  ),
  schedulerAdminAccess: required(
    'scheduler-admin-access',
    'a pod with an adminAccess claim runs with its device',
    scheduler,
  ),
  schedulerFitsNowhere: required(
    'scheduler-fits-nowhere',
    'a claim no device meets leaves its pod Pending, PodScheduled False with reason Unschedulable',
    scheduler,
  ),
  opaqueConfigRefused: recommended(
    'opaque-config-refused',
    'a claim with opaque configuration of the driver that it cannot understand fails at prepare: its pod does not run',
    scheduler,
  ),
} as const satisfies Record<string, CheckDefinition>;

/** Every check the DRA suite reports, in order. */
export const plannedDraChecks = (): CheckDefinition[] => Object.values(draCheckCatalog);
