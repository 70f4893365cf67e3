import { status } from '@grpc/grpc-js';
import fc from 'fast-check';
import { allocateContainers, MAX_CONTAINER_REQUESTS } from './allocate-containers';
import { createPushSource } from './device-source';
import { DevicePluginError } from './device-plugin-error';
import { createDeviceStore } from './device-store';
import type { ResourceDeclaration } from './resource-declaration';

const resource = 'example.com/dev';
const store = createDeviceStore<string>(resource);
store.set([
  {
    id: 'a',
    health: 'Healthy',
    payload: '/dev/a',
    allocation: { devices: [{ containerPath: '/dev/a', hostPath: '/dev/a' }] },
  },
  {
    id: 'b',
    health: 'Healthy',
    payload: '/dev/b',
    allocation: { envs: { X: 'b' }, cdiDevices: ['example.com/dev=b'] },
  },
  { id: 'sick', health: 'Unhealthy' },
]);
const devices = store.devices();
const call = new AbortController();
const base: ResourceDeclaration<string> = { name: resource, source: createPushSource() };
const requestOf = (...containers: string[][]) => ({
  containerRequests: containers.map((devicesIds) => ({ devicesIds })),
});

describe('allocateContainers', () => {
  it('answers one response per container request, in order, merging device allocations by default', async () => {
    const response = await allocateContainers(base, devices, requestOf(['b'], ['a', 'b']), call);
    expect(response.containerResponses).toEqual([
      {
        envs: { X: 'b' },
        annotations: {},
        mounts: [],
        devices: [],
        cdiDevices: [{ name: 'example.com/dev=b' }],
      },
      {
        envs: { X: 'b' },
        annotations: {},
        mounts: [],
        devices: [{ containerPath: '/dev/a', hostPath: '/dev/a', permissions: 'rw' }],
        cdiDevices: [{ name: 'example.com/dev=b' }],
      },
    ]);
  });

  it('keeps the order when hooks finish out of order', async () => {
    const declaration: ResourceDeclaration<string> = {
      ...base,
      allocate: async ({ devices: chosen, containerIndex }) => {
        await new Promise((resolve) => setTimeout(resolve, containerIndex === 0 ? 20 : 0));
        return { envs: { PATHS: chosen.map((d) => d.payload).join(',') } };
      },
    };
    const response = await allocateContainers(declaration, devices, requestOf(['a'], ['b', 'a']), call);
    expect(response.containerResponses.map((r) => r.envs['PATHS'])).toEqual(['/dev/a', '/dev/b,/dev/a']);
  });

  it.each([
    ['no container requests', { containerRequests: [] }, /the request has no container requests/],
    [
      'an empty container request',
      requestOf([]),
      /container request 0 for example.com\/dev names no devices/,
    ],
    [
      'unknown IDs',
      requestOf(['a'], ['x', 'y']),
      /cannot allocate example.com\/dev: unknown device IDs "x", "y" \(container request 1/,
    ],
    ['unhealthy IDs', requestOf(['sick']), /device "sick" unhealthy/],
    ['repeated IDs', requestOf(['a', 'a']), /device "a" requested twice/],
    [
      'more container requests than are served',
      requestOf(...Array.from({ length: MAX_CONTAINER_REQUESTS + 1 }, () => ['a'])),
      /257 container requests, at most 256 are served/,
    ],
  ])('rejects %s with INVALID_ARGUMENT', async (_what, request, message) => {
    const error = await allocateContainers(base, devices, request, call).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DevicePluginError);
    expect(error).toMatchObject({ code: status.INVALID_ARGUMENT, message: expect.stringMatching(message) });
  });

  it('serves the most container requests it accepts, one response each', async () => {
    const request = requestOf(...Array.from({ length: MAX_CONTAINER_REQUESTS }, () => ['a']));
    const response = await allocateContainers(base, devices, request, call);
    expect(response.containerResponses).toHaveLength(MAX_CONTAINER_REQUESTS);
  });

  it('keeps a status code a hook throws and wraps other hook errors as INTERNAL naming the resource', async () => {
    const throwing = (error: unknown): ResourceDeclaration<string> => ({
      ...base,
      allocate: () => {
        throw error;
      },
    });
    await expect(
      allocateContainers(
        throwing(new DevicePluginError(status.RESOURCE_EXHAUSTED, 'no VFs left')),
        devices,
        requestOf(['a']),
        call,
      ),
    ).rejects.toMatchObject({ code: status.RESOURCE_EXHAUSTED, message: 'no VFs left' });
    await expect(
      allocateContainers(throwing(new Error('boom')), devices, requestOf(['a']), call),
    ).rejects.toMatchObject({
      code: status.INTERNAL,
      message: 'allocate hook for example.com/dev failed: boom',
    });
    await expect(
      allocateContainers(
        { ...base, allocate: () => ({ mounts: [{ containerPath: '', hostPath: '/x' }] }) },
        devices,
        requestOf(['a']),
        call,
      ),
    ).rejects.toMatchObject({
      code: status.INTERNAL,
      message: expect.stringContaining('mounts[0].containerPath'),
    });
  });

  it('applies the plugin-wide transform after the hook', async () => {
    const response = await allocateContainers(
      base,
      devices,
      requestOf(['a']),
      call,
      ({ allocation, devices: chosen }) => ({
        ...allocation,
        cdiDevices: chosen.map((d) => `kdp.example/dev=${d.id}`),
      }),
    );
    expect(response.containerResponses[0]?.cdiDevices).toEqual([{ name: 'kdp.example/dev=a' }]);
  });

  it('never throws anything but a DevicePluginError on garbage requests', async () => {
    await fc.assert(
      fc.asyncProperty(fc.anything(), async (garbage) => {
        const result = await allocateContainers(base, devices, garbage as never, call).catch(
          (e: unknown) => e,
        );
        return (
          result instanceof DevicePluginError ||
          (typeof result === 'object' && result !== null && 'containerResponses' in result)
        );
      }),
    );
  });

  it('keeps error messages short for huge hostile requests', async () => {
    const ids = Array.from({ length: 100_000 }, (_, i) => `${'x'.repeat(200)}${i}`);
    const error = (await allocateContainers(base, devices, requestOf(ids), call).catch(
      (e: unknown) => e,
    )) as Error;
    expect(error.message).toMatch(/and 99992 more/);
    expect(error.message.length).toBeLessThan(1200);
  });
});
