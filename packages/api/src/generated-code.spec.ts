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
  ])('%s', (_name, codec: { fromPartial(o: object): object }, fields) => {
    expect(Object.keys(codec.fromPartial({}))).toEqual(fields);
  });
});
