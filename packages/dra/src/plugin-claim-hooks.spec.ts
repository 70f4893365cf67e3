import { createLogger } from '@kdp/base';
import type { PluginDevice, ResourceDeclaration } from '@kdp/core';
import type { PrepareInput } from './dra-driver';
import { preparePluginClaim, type ClaimableResource } from './prepare-plugin-claim';
import type { ResourceClaim } from './resource-claim';
import { unpreparePluginClaim } from './unprepare-plugin-claim';

const POOL = 'node-a/example.com/gpu';
const silentLogger = createLogger({ level: 'silent' });
const device = (id: string): PluginDevice<string> => ({
  id,
  health: 'Healthy',
  payload: id,
  allocation: { devices: [{ containerPath: `/dev/${id}`, hostPath: `/dev/${id}`, permissions: 'rw' }] },
});

/** A resource whose DRA hooks make partition `part-*` devices (recorded in `calls`), handing over their node. */
function resource(calls: string[], hooks = true): ClaimableResource {
  const declaration: ResourceDeclaration<string> = {
    name: 'example.com/gpu',
    source: { subscribe: () => () => undefined },
    allocate: ({ devices }) => ({ devices: devices.flatMap((d) => d.allocation?.devices ?? []) }),
    ...(hooks
      ? {
          dra: {
            prepare: async ({ devices, claimUid }) =>
              devices.map((d) => {
                calls.push(`prepare ${claimUid} ${d.id}`);
                return d.id.startsWith('part-')
                  ? {
                      devices: [
                        { containerPath: '/dev/made', hostPath: `/dev/made-${d.id}`, permissions: 'rw' },
                      ],
                    }
                  : undefined;
              }),
            unprepare: async ({ devices, claimUid }) =>
              void calls.push(`unprepare ${claimUid} ${devices.map((d) => d.id).join(',')}`),
          },
        }
      : {}),
  };
  return {
    declaration,
    devices: new Map(['gpu-0', 'part-1'].map((id) => [id, device(id)])),
  };
}

const input = (devices: readonly string[]): PrepareInput => ({
  claim: { metadata: { name: 'c', namespace: 'default', uid: 'uid-1' } } as ResourceClaim,
  results: devices.map((d) => ({ request: 'r', driver: 'gpu.kdp.dev', pool: POOL, device: d })),
  config: [],
});

describe('a plugin claim through the resource’s DRA prepare/unprepare hooks', () => {
  it('prepare: the hook makes the devices first; its answer replaces the allocate hook’s for its devices', async () => {
    const calls: string[] = [];
    const byPool = new Map([[POOL, resource(calls)]]);
    const out = await preparePluginClaim(
      input(['gpu-0', 'part-1']),
      byPool,
      'gpu.kdp.dev',
      new AbortController().signal,
      silentLogger,
    );
    expect(calls).toEqual(['prepare uid-1 gpu-0', 'prepare uid-1 part-1']);
    expect(out.devices.map((d) => [d.deviceName, d.containerEdits?.deviceNodes])).toEqual([
      ['gpu-0', [{ path: '/dev/gpu-0', permissions: 'rw' }]],
      ['part-1', [{ path: '/dev/made', hostPath: '/dev/made-part-1', permissions: 'rw' }]],
    ]);
  });

  it('prepare: a hook that throws fails the claim', async () => {
    const failing = resource([]);
    const byPool = new Map([
      [
        POOL,
        {
          ...failing,
          declaration: {
            ...failing.declaration,
            dra: { prepare: () => Promise.reject(new Error('returned 23')) },
          },
        },
      ],
    ]);
    await expect(
      preparePluginClaim(
        input(['part-1']),
        byPool,
        'gpu.kdp.dev',
        new AbortController().signal,
        silentLogger,
      ),
    ).rejects.toThrow('returned 23');
  });

  it('unprepare: the hook gets the claim’s devices the pool still knows; resources without it are skipped', async () => {
    const calls: string[] = [];
    const { results } = input(['gpu-0', 'part-1', 'gone']);
    const unprepare = {
      claim: { namespace: 'default', name: 'c', uid: 'uid-1' },
      devices: [],
      results,
      state: 'PrepareCompleted' as const,
    };
    await unpreparePluginClaim(unprepare, new Map([[POOL, resource(calls)]]));
    expect(calls).toEqual(['unprepare uid-1 gpu-0,part-1']);
    await unpreparePluginClaim(unprepare, new Map([[POOL, resource(calls, false)]]));
    await unpreparePluginClaim(unprepare, new Map());
    expect(calls).toHaveLength(1);
  });
});
