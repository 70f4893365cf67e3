import type { draV1 } from '@kdp/api';
import { createFakeClock } from '@kdp/kubelet-sim';
import type { ClaimRef } from './check-allocation';
import { createDraService } from './dra-service';

type Handler = (call: unknown, callback: (error: unknown, value?: unknown) => void) => void;

/** Calls one handler of the service as grpc-js would, and resolves with its answer. */
function call(service: draV1.DRAPluginServer, name: keyof draV1.DRAPluginServer, request: unknown) {
  return new Promise<{ error: unknown; value?: unknown }>((resolve) =>
    (service[name] as unknown as Handler)({ request }, (error, value) => resolve({ error, value })),
  );
}

describe('createDraService', () => {
  const reports: unknown[][] = [];
  const service = createDraService({
    preparer: {
      prepare: async (claims: readonly ClaimRef[]) =>
        new Map(
          claims.map((c) => [
            c.uid,
            c.name === 'bad'
              ? { error: 'no such claim' }
              : {
                  devices: [
                    { requestNames: ['r'], poolName: 'p', deviceName: 'd0', cdiDeviceIds: ['kdp.dev/x=d0'] },
                  ],
                },
          ]),
        ),
      unprepare: async (claims: readonly ClaimRef[]) => new Map(claims.map((c) => [c.uid, ''])),
    },
    clock: createFakeClock(0),
    report: (...args) => reports.push(args),
  });

  it('answers each claim of a call, and reports the call', async () => {
    const answer = await call(service, 'nodePrepareResources', {
      claims: [
        { namespace: 'ns', name: 'good', uid: 'u1' },
        { namespace: 'ns', name: 'bad', uid: 'u2' },
      ],
    });
    expect(answer.error).toBeNull();
    expect(answer.value).toEqual({
      claims: {
        u1: {
          error: '',
          devices: [{ requestNames: ['r'], poolName: 'p', deviceName: 'd0', cdiDeviceIds: ['kdp.dev/x=d0'] }],
        },
        u2: { error: 'no such claim', devices: [] },
      },
    });
    expect(reports).toContainEqual(['prepared', 2, ['no such claim'], 0]);
  });
});
