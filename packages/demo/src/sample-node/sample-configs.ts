import type { PluginName } from '../plugin-names';

/** The af-mode resource name Intel's plugin derives from the sample FPGA's interface ID and NLB0 AFU ID. */
export const FPGA_RESOURCE = 'fpga.intel.com/af-695.d84.aVKNtusxV3qMNmj5-qCB9thCTcSko8QT-J5DNoP5BAs';

/** One resource the sample node should make a plugin advertise, with its device count. */
export interface ExpectedResource {
  readonly plugin: PluginName;
  readonly resource: string;
  readonly devices: number;
}

/** What each plugin advertises on the sample node with {@link SAMPLE_CONFIGS}, in table order. */
export const EXPECTED_RESOURCES: readonly ExpectedResource[] = [
  { plugin: 'gpu', resource: 'nvidia.com/gpu', devices: 2 },
  { plugin: 'gpu', resource: 'amd.com/gpu', devices: 1 },
  { plugin: 'sriov', resource: 'intel.com/sriov_netdevice', devices: 4 },
  { plugin: 'sriov', resource: 'intel.com/sriov_dpdk', devices: 2 },
  { plugin: 'infiniband', resource: 'rdma/hca', devices: 2 },
  { plugin: 'usb', resource: 'example.com/serial', devices: 2 },
  { plugin: 'usb', resource: 'example.com/camera', devices: 2 },
  { plugin: 'usb', resource: 'example.com/zigbee', devices: 1 },
  { plugin: 'fpga', resource: FPGA_RESOURCE, devices: 1 },
];

/** How one plugin runs on the sample node. */
export interface SampleConfig {
  /** Its configuration file: name and content (YAML; upstream's JSON for SR-IOV). */
  readonly file: string;
  readonly content: string;
  /**
   * Common flags its own process gets beyond the roots and directories (`--poll-interval`). In one
   * `kdp-device-plugins` process the common flags are shared by all five plugins, so these are left out there.
   */
  readonly flags: readonly string[];
}

/** The configuration of each plugin on the sample node. */
export const SAMPLE_CONFIGS: Readonly<Record<PluginName, SampleConfig>> = {
  gpu: {
    file: 'gpu.yaml',
    content: `# NVIDIA GPUs as env var and CDI names; no NVML on a fixture node (health from sysfs, procfs and /dev)
nvidia:
  deviceListStrategy: [envvar, cdi]
health:
  nvml: off
`,
    flags: [],
  },
  sriov: {
    file: 'sriov.json',
    content: `${JSON.stringify(
      {
        resourceList: [
          {
            resourceName: 'sriov_netdevice',
            resourcePrefix: 'intel.com',
            selectors: { vendors: ['8086'], devices: ['1889'], drivers: ['iavf'] },
          },
          {
            resourceName: 'sriov_dpdk',
            resourcePrefix: 'intel.com',
            selectors: { vendors: ['8086'], devices: ['1889'], drivers: ['vfio-pci'] },
          },
        ],
      },
      null,
      2,
    )}\n`,
    flags: [],
  },
  infiniband: {
    file: 'infiniband.yaml',
    content: `# one device per HCA (kdp's exclusive mode); port health is polled every 500 ms (--poll-interval)
configList:
  - resourceName: hca
    mode: exclusive
    selectors: { vendors: ['15b3'], linkTypes: [infiniband] }
`,
    flags: ['--poll-interval=500ms'],
  },
  usb: {
    file: 'usb.yaml',
    content: `# USB devices by vendor/product or class; the usb package (libusb) is never loaded for a fixture tree
usbLibrary: off
resources:
  - name: example.com/serial
    match: [{ vendor: '0403', product: '6001' }]
  - name: example.com/camera
    match: [{ class: 0e }]
    count: 2
  - name: example.com/zigbee
    match: [{ vendor: 10c4, product: ea60 }]
`,
    flags: [],
  },
  fpga: {
    file: 'fpga.yaml',
    content: `# Intel FPGAs advertised by the AFU loaded on them (fpga.intel.com/af-...)
mode: af
`,
    flags: [],
  },
};
