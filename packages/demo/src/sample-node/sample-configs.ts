import type { PluginName } from '../plugin-names';
import { FPGA_CARD } from './add-fpga';

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
  { plugin: 'fpga', resource: FPGA_CARD.resource, devices: 1 },
];

/** The configuration file of each plugin: file name and content (YAML, upstream's JSON for SR-IOV). */
export const SAMPLE_CONFIGS: Readonly<
  Record<PluginName, { readonly file: string; readonly content: string }>
> = {
  gpu: {
    file: 'gpu.yaml',
    content: `# NVIDIA GPUs as env var and CDI names; no NVML on a fixture node (health from sysfs, procfs and /dev)
nvidia:
  deviceListStrategy: [envvar, cdi]
health:
  nvml: off
  pollIntervalMs: 1000
`,
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
  },
  infiniband: {
    file: 'infiniband.yaml',
    content: `# one device per HCA (kdp's exclusive mode), port health polled every 500 ms
pollIntervalMs: 500
configList:
  - resourceName: hca
    mode: exclusive
    selectors: { vendors: ['15b3'], linkTypes: [infiniband] }
`,
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
  },
  fpga: {
    file: 'fpga.yaml',
    content: `# Intel FPGAs advertised by the AFU loaded on them (fpga.intel.com/af-...)
mode: af
pollIntervalMs: 1000
`,
  },
};
