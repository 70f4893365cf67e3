import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import {
  AllocateRequest,
  AllocateResponse,
  ContainerAllocateRequest,
  ContainerAllocateResponse,
  ContainerPreferredAllocationRequest,
  ContainerPreferredAllocationResponse,
  Device,
  DevicePluginOptions,
  DevicePluginService,
  DeviceSpec,
  Mount,
  NUMANode,
  PreStartContainerRequest,
  RegisterRequest,
  RegistrationService,
  draHealthV1,
  draHealthV1alpha1,
  draV1,
  draV1beta1,
  pluginregistration,
  podresources,
  v1alpha,
} from './index';

const root = join(__dirname, '../../..');
const committedGen = join(__dirname, 'gen');

function listFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? listFiles(path) : [path];
  });
}

describe('generated code', () => {
  it('is exactly what `npm run generate` produces from proto/ (run it after editing a .proto)', () => {
    const out = mkdtempSync(join(tmpdir(), 'kdp-gen-'));
    try {
      execFileSync(process.execPath, [join(root, 'tools/proto/generate.mjs'), '--out', out], {
        cwd: root,
        stdio: 'pipe',
      });
      const freshGen = join(out, 'packages/api/src/gen');
      const fresh = listFiles(freshGen).map((f) => relative(freshGen, f));
      const committed = listFiles(committedGen).map((f) => relative(committedGen, f));
      expect(committed.sort()).toEqual(fresh.sort());
      for (const file of fresh) {
        // One assertion per file, so a failure names the file that drifted.
        expect({ file, text: readFileSync(join(committedGen, file), 'utf8') }).toEqual({
          file,
          text: readFileSync(join(freshGen, file), 'utf8'),
        });
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('gRPC method paths', () => {
  it.each([
    [RegistrationService.register.path, '/v1beta1.Registration/Register'],
    [DevicePluginService.getDevicePluginOptions.path, '/v1beta1.DevicePlugin/GetDevicePluginOptions'],
    [DevicePluginService.listAndWatch.path, '/v1beta1.DevicePlugin/ListAndWatch'],
    [DevicePluginService.getPreferredAllocation.path, '/v1beta1.DevicePlugin/GetPreferredAllocation'],
    [DevicePluginService.allocate.path, '/v1beta1.DevicePlugin/Allocate'],
    [DevicePluginService.preStartContainer.path, '/v1beta1.DevicePlugin/PreStartContainer'],
    [v1alpha.RegistrationService.register.path, '/deviceplugin.Registration/Register'],
    [v1alpha.DevicePluginService.listAndWatch.path, '/deviceplugin.DevicePlugin/ListAndWatch'],
    [v1alpha.DevicePluginService.allocate.path, '/deviceplugin.DevicePlugin/Allocate'],
    [podresources.PodResourcesListerService.list.path, '/v1.PodResourcesLister/List'],
    [
      podresources.PodResourcesListerService.getAllocatableResources.path,
      '/v1.PodResourcesLister/GetAllocatableResources',
    ],
    [podresources.PodResourcesListerService.get.path, '/v1.PodResourcesLister/Get'],
    [pluginregistration.RegistrationService.getInfo.path, '/pluginregistration.Registration/GetInfo'],
    [
      pluginregistration.RegistrationService.notifyRegistrationStatus.path,
      '/pluginregistration.Registration/NotifyRegistrationStatus',
    ],
    [
      draV1.DRAPluginService.nodePrepareResources.path,
      '/k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin/NodePrepareResources',
    ],
    [
      draV1.DRAPluginService.nodeUnprepareResources.path,
      '/k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin/NodeUnprepareResources',
    ],
    [
      draV1beta1.DRAPluginService.nodePrepareResources.path,
      '/k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin/NodePrepareResources',
    ],
    [
      draV1beta1.DRAPluginService.nodeUnprepareResources.path,
      '/k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin/NodeUnprepareResources',
    ],
    [
      draHealthV1alpha1.DRAResourceHealthService.nodeWatchResources.path,
      '/v1alpha1.DRAResourceHealth/NodeWatchResources',
    ],
    [
      draHealthV1.DRAResourceHealthService.nodeWatchResources.path,
      '/v1.DRAResourceHealth/NodeWatchResources',
    ],
  ])('%s', (actual, expected) => {
    expect(actual).toBe(expected);
  });

  it('ListAndWatch is the only server-streaming v1beta1 RPC', () => {
    const streaming = Object.entries(DevicePluginService)
      .filter(([, method]) => method.responseStream)
      .map(([name]) => name);
    expect(streaming).toEqual(['listAndWatch']);
    expect(Object.values(DevicePluginService).some((method) => method.requestStream)).toBe(false);
  });

  it('NodeWatchResources is server-streaming; the DRAPlugin RPCs are unary', () => {
    for (const health of [draHealthV1alpha1, draHealthV1]) {
      const method = health.DRAResourceHealthService.nodeWatchResources;
      expect([method.requestStream, method.responseStream]).toEqual([false, true]);
    }
    for (const dra of [draV1, draV1beta1]) {
      const methods = Object.values(dra.DRAPluginService);
      expect(methods.map((m) => [m.requestStream, m.responseStream])).toEqual([
        [false, false],
        [false, false],
      ]);
    }
  });

  it('the health enum has the upstream numbers', () => {
    for (const { HealthStatus } of [draHealthV1alpha1, draHealthV1]) {
      expect([HealthStatus.UNKNOWN, HealthStatus.HEALTHY, HealthStatus.UNHEALTHY]).toEqual([0, 1, 2]);
    }
  });
});

// The upstream field names are irregular (ID, devices_ids, available_deviceIDs, deviceIDs); these pin the
// TypeScript names ts-proto derives from them, so a generator upgrade cannot rename a field unnoticed.
describe('generated TypeScript field names', () => {
  it.each([
    ['DevicePluginOptions', DevicePluginOptions, ['preStartRequired', 'getPreferredAllocationAvailable']],
    ['RegisterRequest', RegisterRequest, ['version', 'endpoint', 'resourceName', 'options']],
    ['Device', Device, ['ID', 'health', 'topology']],
    ['NUMANode', NUMANode, ['ID']],
    ['PreStartContainerRequest', PreStartContainerRequest, ['devicesIds']],
    [
      'ContainerPreferredAllocationRequest',
      ContainerPreferredAllocationRequest,
      ['availableDeviceIDs', 'mustIncludeDeviceIDs', 'allocationSize'],
    ],
    ['ContainerPreferredAllocationResponse', ContainerPreferredAllocationResponse, ['deviceIDs']],
    ['AllocateRequest', AllocateRequest, ['containerRequests']],
    ['ContainerAllocateRequest', ContainerAllocateRequest, ['devicesIds']],
    ['AllocateResponse', AllocateResponse, ['containerResponses']],
    [
      'ContainerAllocateResponse',
      ContainerAllocateResponse,
      ['envs', 'mounts', 'devices', 'annotations', 'cdiDevices'],
    ],
    ['Mount', Mount, ['containerPath', 'hostPath', 'readOnly']],
    ['DeviceSpec', DeviceSpec, ['containerPath', 'hostPath', 'permissions']],
    ['v1alpha.AllocateRequest', v1alpha.AllocateRequest, ['devicesIDs']],
    ['v1alpha.AllocateResponse', v1alpha.AllocateResponse, ['envs', 'mounts', 'devices', 'annotations']],
    [
      'podresources.ContainerDevices',
      podresources.ContainerDevices,
      ['resourceName', 'deviceIds', 'topology'],
    ],
    [
      'podresources.ContainerResources',
      podresources.ContainerResources,
      ['name', 'devices', 'cpuIds', 'memory', 'dynamicResources'],
    ],
    [
      'pluginregistration.PluginInfo',
      pluginregistration.PluginInfo,
      ['type', 'name', 'endpoint', 'supportedVersions'],
    ],
    ['draV1.Claim', draV1.Claim, ['namespace', 'uid', 'name']],
    ['draV1.Device', draV1.Device, ['requestNames', 'poolName', 'deviceName', 'cdiDeviceIds', 'shareId']],
    ['draV1.NodePrepareResourceResponse', draV1.NodePrepareResourceResponse, ['devices', 'error']],
    ['draV1beta1.Device', draV1beta1.Device, ['requestNames', 'poolName', 'deviceName', 'cdiDeviceIds']],
    [
      'draHealthV1.DeviceHealth',
      draHealthV1.DeviceHealth,
      ['device', 'health', 'lastUpdatedTime', 'healthCheckTimeoutSeconds', 'message'],
    ],
    ['draHealthV1alpha1.DeviceIdentifier', draHealthV1alpha1.DeviceIdentifier, ['poolName', 'deviceName']],
  ])('%s', (_name, codec: { fromPartial(o: object): object }, fields) => {
    expect(Object.keys(codec.fromPartial({}))).toEqual(fields);
  });
});
