import { anchorBinaries } from './anchor-binaries';

describe('anchorBinaries', () => {
  it.each([
    ['nvidia-device-plugin', 'NVIDIA/k8s-device-plugin'],
    ['k8s-device-plugin', 'ROCm/k8s-device-plugin'],
    ['intel_gpu_device_plugin', '(gpu_plugin)'],
    ['sriovdp', 'sriov-network-device-plugin'],
    ['entrypoint.sh', 'sriov-network-device-plugin'],
    ['k8s-rdma-shared-dp', 'k8s-rdma-shared-dev-plugin'],
    ['generic-device-plugin', 'squat/generic-device-plugin'],
    ['intel_fpga_device_plugin', '(fpga_plugin)'],
  ])('%s runs the plugin whose compat layer takes that anchor (%s)', (name, anchor) => {
    const anchors = (anchorBinaries[name]?.compat ?? []).map((layer) => layer.anchor);
    expect(anchors.some((text) => text.includes(anchor))).toBe(true);
  });
});
