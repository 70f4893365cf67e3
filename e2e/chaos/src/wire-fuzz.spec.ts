import { readdirSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { credentials, Metadata, status } from '@grpc/grpc-js';
import {
  AllocateRequest,
  type AllocateResponse,
  DevicePluginClient,
  type DevicePluginOptions,
  DevicePluginService,
  PreferredAllocationRequest,
  PreferredAllocationResponse,
  PreStartContainerRequest,
  v1alpha,
} from '@kdp/api';
import { rssMiB } from '@kdp/kubelet-sim/testing';
import fc from 'fast-check';
import { startWireTarget, type WireTarget } from './wire-all-in-one';
import { createWireSession, describeOutcome, grpcFrame, type WireSession } from './wire-grpc-client';
import { heapAfterGcMiB, openInspector, type InspectorSession } from './wire-inspector';
import { HTTP2_PREFACE, http2Frame, sendRawBytes } from './wire-raw-connection';

// Fuzzing every socket of `kdp-device-plugins serve` (all five plugins, nine resources on the demo's sample
// node) at the wire: garbage connections, malformed and random gRPC messages, oversized ones, thousands of
// concurrent streams. After each round the process is alive, every socket answers GetDevicePluginOptions and a
// valid Allocate on a new connection, the simulated kubelet's own ListAndWatch streams never ended and nothing
// registered again, the plugin counts one open stream per resource (the kubelet's), and the process holds no
// more file descriptors than before (connections it refused with a GOAWAY once core's keepalive reaped them);
// after the concurrent round its live heap and RSS are back near where they were.

/** Bounds generous enough for a busy 2-core machine; a hang or a quadratic blow-up misses each by far. */
const REGISTRATION_MS = 60_000;
const CALL_MS = 20_000;
const SETTLE_MS = 30_000;
/** Core pings every connection after 20 s and drops it 10 s later without an answer (CONNECTION_KEEPALIVE). */
const KEEPALIVE_REAP_MS = 60_000;
/** Connections per socket left open after a GOAWAY: far more than the fd slack. */
const STUCK_CONNECTIONS = 10;
/** fast-check: fixed seed, a modest number of runs per socket and property. */
const FUZZ = { seed: 18, numRuns: 50 } as const;
/** Concurrent round, per socket (all nine at once): calls of each kind, spread over this many connections. */
const STREAMS_PER_KIND = 500;
const CONNECTIONS = 4;
/**
 * Slack on open fds after a round (a log file, a timer fd); on the live heap and RSS after the concurrent round
 * (after a full GC; malloc keeps some of what the peak took). Leaking each stream's objects would add well over
 * the heap slack: the round makes 9,000 calls.
 */
const FD_SLACK = 8;
const HEAP_SLACK_MIB = 8;
const RSS_SLACK_MIB = 64;
/** Legal but huge requests: IDs in one list (or two halves), and container requests in one Allocate. */
const LONG_LIST = 100_000;
const MANY_CONTAINERS = 10_000;

const PATHS = DevicePluginService;
const EMPTY = grpcFrame(new Uint8Array());
/** Every method path the plugins serve (v1beta1 and the old v1alpha). */
const METHOD_PATHS: readonly string[] = [
  ...Object.values(DevicePluginService).map((method) => method.path),
  ...Object.values(v1alpha.DevicePluginService).map((method) => method.path),
];
const isStreaming = (path: string): boolean => path.endsWith('/ListAndWatch');

/** Calls of each kind sent, reported once at the end. */
const sent: Record<string, number> = {};
const count = (kind: string, n = 1): void => {
  sent[kind] = (sent[kind] ?? 0) + n;
};
/** The slowest answer of each huge request kind, in ms, reported at the end. */
const slowest: Record<string, number> = {};

const openFds = (pid: number): number => readdirSync(`/proc/${pid}/fd`).length;

/** Polls `read` (every 100 ms) until `ok` holds or `timeoutMs` passed; returns the last value read. */
async function settle<T>(
  read: () => T | Promise<T>,
  ok: (value: T) => boolean,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!ok(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    value = await read();
  }
  return value;
}

/** `kdp_list_and_watch_streams` of every resource, from the process's /metrics. */
async function openStreams(metricsUrl: string): Promise<Record<string, number>> {
  const text = await (await fetch(metricsUrl)).text();
  const streams: Record<string, number> = {};
  for (const [, resource, value] of text.matchAll(
    /^kdp_list_and_watch_streams\{resource="([^"]+)"\} (\d+)$/gm,
  ))
    streams[resource ?? ''] = Number(value);
  return streams;
}

/** A unary call through grpc-js (an independent client), given its callback; with a deadline of `CALL_MS`. */
function unary<Res>(
  start: (options: { deadline: Date }, callback: (error: Error | null, response: Res) => void) => unknown,
): Promise<Res> {
  return new Promise((resolve, reject) =>
    start({ deadline: new Date(Date.now() + CALL_MS) }, (error, response) =>
      error ? reject(error) : resolve(response),
    ),
  );
}

describe('kdp-device-plugins at the wire, every plugin socket fuzzed', () => {
  let target: WireTarget;
  let pid: number;
  let fdBaseline: number;
  let inspector: InspectorSession;
  const streamEnded: unknown[] = [];
  const registeredAgain: unknown[] = [];
  /** Process usage, reported at the end. */
  const usage: string[] = [];
  const started = Date.now();

  beforeAll(async () => {
    target = await startWireTarget({ registrationTimeoutMs: REGISTRATION_MS });
    pid = target.plugin.child.pid ?? 0;
    target.sim.events.on('stream-ended', (event) => streamEnded.push(event));
    target.sim.events.on('registered', (event) => registeredAgain.push(event));
    inspector = await openInspector(target.inspectorUrl);
    await expectServing();
    fdBaseline = openFds(pid);
  }, REGISTRATION_MS + 30_000);

  afterAll(async () => {
    inspector?.close();
    await target?.close();
    console.info(
      `wire fuzz: ${target?.sockets.length ?? 0} sockets, ${Date.now() - started} ms; calls sent ${JSON.stringify(sent)}; slowest huge requests (ms) ${JSON.stringify(slowest)}; ${usage.join('; ')}`,
    );
  });

  const diagnostics = (): string => target.plugin.stderr().split('\n').slice(-20).join('\n');

  /** The checks after every round (see the header). */
  async function expectServing(): Promise<void> {
    expect({ exitCode: target.plugin.child.exitCode, signal: target.plugin.child.signalCode }).toEqual({
      exitCode: null,
      signal: null,
    });
    for (const { resource, path } of target.sockets) {
      const state = target.sim.resource(resource);
      const id = state?.healthy[0];
      expect({ resource, registered: state?.registered, healthy: id !== undefined }).toEqual({
        resource,
        registered: true,
        healthy: true,
      });
      const client = new DevicePluginClient(`unix://${path}`, credentials.createInsecure());
      try {
        const options = await unary<DevicePluginOptions>((deadline, callback) =>
          client.getDevicePluginOptions({}, new Metadata(), deadline, callback),
        );
        expect(options).toEqual(state?.options);
        const request = { containerRequests: [{ devicesIds: [id ?? ''] }] };
        const reply = await unary<AllocateResponse>((deadline, callback) =>
          client.allocate(request, new Metadata(), deadline, callback),
        );
        expect(reply.containerResponses).toHaveLength(1);
        count('check');
      } catch (error) {
        throw new Error(`${resource} stopped answering: ${String(error)}\n${diagnostics()}`, {
          cause: error,
        });
      } finally {
        client.close();
      }
    }
    // The kubelet's own stream of every resource is the one it opened at registration, and every other stream
    // is gone from the plugin's books once its client went.
    expect({ streamEnded, registeredAgain }).toEqual({ streamEnded: [], registeredAgain: [] });
    const onlyKubelet = Object.fromEntries(target.sockets.map(({ resource }) => [resource, 1]));
    const streams = await settle(
      () => openStreams(target.metricsUrl),
      (open) => isDeepStrictEqual(open, onlyKubelet),
      SETTLE_MS,
    );
    expect(streams).toEqual(onlyKubelet);
  }

  /** Waits until the process holds no more fds than at the start (plus slack); returns the count. */
  async function expectFdsReleased(timeoutMs = SETTLE_MS): Promise<number> {
    const fds = await settle(
      () => openFds(pid),
      (n) => n <= fdBaseline + FD_SLACK,
      timeoutMs,
    );
    expect(fds).toBeLessThanOrEqual(fdBaseline + FD_SLACK);
    return fds;
  }

  /** A session on `path`, re-opened whenever the server closed the last one. */
  function sessionOn(path: string): () => Promise<WireSession> {
    let session: WireSession | undefined;
    return async () => {
      if (session === undefined || session.closed()) session = await createWireSession(path);
      return session;
    };
  }

  it('closes connections that open with garbage, answers or refuses random frames, and reaps what it refused', async () => {
    const garbage = fc
      .uint8Array({ minLength: HTTP2_PREFACE.length, maxLength: 1024 })
      .filter((bytes) => !Buffer.from(bytes.subarray(0, 3)).equals(HTTP2_PREFACE.subarray(0, 3)));
    const frame = fc
      .record({
        type: fc.integer({ min: 0, max: 255 }),
        flags: fc.integer({ min: 0, max: 255 }),
        streamId: fc.oneof(fc.constantFrom(0, 1, 3), fc.integer({ min: 0, max: 0x7fffffff })),
        payload: fc.uint8Array({ maxLength: 256 }),
      })
      .map(({ type, flags, streamId, payload }) => http2Frame(type, flags, streamId, payload));
    for (const { resource, path } of target.sockets) {
      await fc.assert(
        fc.asyncProperty(garbage, async (bytes) => {
          count('garbage preface');
          expect([resource, await sendRawBytes(path, bytes, { timeoutMs: CALL_MS })]).toEqual([
            resource,
            'closed',
          ]);
        }),
        FUZZ,
      );
      await fc.assert(
        fc.asyncProperty(fc.array(frame, { minLength: 1, maxLength: 8 }), async (frames) => {
          const outcome = await sendRawBytes(path, Buffer.concat([HTTP2_PREFACE, ...frames]), {
            ping: true,
            timeoutMs: CALL_MS,
          });
          count(`random frames, ${outcome}`);
          expect([resource, outcome]).toEqual([
            resource,
            expect.stringMatching(/^(closed|goaway|ping-ack)$/),
          ]);
        }),
        FUZZ,
      );
      // A connection error Node's HTTP/2 server answers with a GOAWAY and then never closes on its own, not even
      // once the client is gone (Node 20): SETTINGS, then DATA on stream 0. Each held a file descriptor for good
      // until core pinged every connection; now the unanswered keepalive ping reaps them.
      const stuck = Buffer.concat([
        HTTP2_PREFACE,
        http2Frame(4, 0, 0, Buffer.alloc(0)),
        http2Frame(0, 0, 0, Buffer.alloc(0)),
      ]);
      for (let i = 0; i < STUCK_CONNECTIONS; i++) {
        count('GOAWAY, left open');
        expect(await sendRawBytes(path, stuck, { ping: true, timeoutMs: CALL_MS })).toBe('goaway');
      }
    }
    await expectServing();
    await expectFdsReleased(KEEPALIVE_REAP_MS);
  });

  it('answers random, truncated and compressed messages and unknown methods with a status', async () => {
    const payload = fc.uint8Array({ maxLength: 512 });
    /** A malformed request body, with the headers it goes with. */
    const malformed = fc.oneof(
      payload.map((bytes) => ({ kind: 'random payload', body: grpcFrame(bytes), headers: {} })),
      fc
        .tuple(
          fc.uint8Array({ minLength: 1, maxLength: 512 }),
          fc.nat(),
          fc.integer({ min: 1, max: 1 << 20 }),
        )
        .map(([bytes, cut, extra]) => ({
          kind: 'truncated message',
          body: grpcFrame(bytes.subarray(0, cut % bytes.length), { declaredLength: bytes.length + extra }),
          headers: {},
        })),
      fc.uint8Array({ minLength: 1, maxLength: 4 }).map((bytes) => ({
        kind: 'truncated prefix',
        body: Buffer.from(bytes),
        headers: {},
      })),
      fc
        .tuple(payload, fc.constantFrom(undefined, 'gzip', 'deflate', 'snappy', 'identity'))
        .map(([bytes, encoding]) => ({
          kind: 'compressed garbage',
          body: grpcFrame(bytes, { compressed: true }),
          headers: encoding === undefined ? {} : { 'grpc-encoding': encoding },
        })),
      fc.tuple(payload, payload).map(([a, b]) => ({
        kind: 'two messages',
        body: Buffer.concat([grpcFrame(a), grpcFrame(b)]),
        headers: {},
      })),
    );
    const unknownPath = fc.oneof(
      fc.string({ maxLength: 40 }).map((name) => `/v1beta1.DevicePlugin/${encodeURIComponent(name)}x`),
      fc.stringMatching(/^\/[a-zA-Z0-9._/-]{0,60}$/),
    );
    for (const { resource, path } of target.sockets) {
      const session = sessionOn(path);
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...METHOD_PATHS), malformed, async (method, request) => {
          count(request.kind);
          const options = { headers: request.headers, timeoutMs: CALL_MS };
          // A streaming method may start its stream when the garbage happens to decode (its first message
          // then comes at once); every other call ends with a status.
          let outcome: string;
          if (isStreaming(method)) {
            const call = await (await session()).open(method, request.body, options);
            await call.cancel();
            outcome = call.outcome.kind === 'message' ? 'stream started' : describeOutcome(call.outcome);
          } else {
            outcome = describeOutcome(await (await session()).call(method, request.body, options));
          }
          expect({ resource, method, kind: request.kind, outcome }).toEqual({
            resource,
            method,
            kind: request.kind,
            outcome: expect.stringMatching(/^(status \d+: |stream started$)/),
          });
        }),
        FUZZ,
      );
      await fc.assert(
        fc.asyncProperty(unknownPath, payload, async (method, bytes) => {
          fc.pre(!METHOD_PATHS.includes(method));
          count('unknown method');
          const outcome = await (await session()).call(method, grpcFrame(bytes), { timeoutMs: CALL_MS });
          expect({ resource, method, outcome }).toMatchObject({
            outcome: { kind: 'status', code: status.UNIMPLEMENTED },
          });
        }),
        FUZZ,
      );
      // Half a message and no end of stream: the server waits for the rest (it must not answer), until the
      // connection drops; nothing of those calls may stay behind. A connection's streams are taken in order, so
      // once a later call is answered the server holds every half message.
      const dropped = await createWireSession(path);
      const halves = METHOD_PATHS.map((method) =>
        dropped.call(method, grpcFrame(new Uint8Array(8), { declaredLength: 64 }), {
          endStream: false,
          timeoutMs: CALL_MS,
        }),
      );
      count('truncated, then dropped', halves.length);
      const options = await dropped.call(PATHS.getDevicePluginOptions.path, EMPTY, { timeoutMs: CALL_MS });
      expect(describeOutcome(options)).toBe('status 0: OK');
      await dropped.close(0);
      expect((await Promise.all(halves)).map((outcome) => outcome.kind)).toEqual(halves.map(() => 'reset'));
      await (await session()).close();
    }
    await expectServing();
    await expectFdsReleased();
  });

  it('answers well-formed requests with random contents with a status, never UNKNOWN or INTERNAL', async () => {
    for (const { resource, path } of target.sockets) {
      const state = target.sim.resource(resource);
      const known = [...(state?.healthy ?? []), ...(state?.unhealthy ?? [])];
      const id = fc.oneof(
        fc.constantFrom(...known),
        fc.string({ maxLength: 80 }),
        fc.string({ unit: 'binary', maxLength: 300 }),
      );
      const ids = fc.array(id, { maxLength: 12 });
      const size = fc.oneof(
        fc.integer({ min: -3, max: 12 }),
        fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
      );
      const request = fc.oneof(
        fc.array(ids, { maxLength: 4 }).map((containers) => ({
          path: PATHS.allocate.path,
          body: AllocateRequest.encode({
            containerRequests: containers.map((devicesIds) => ({ devicesIds })),
          }).finish(),
          containers: containers.length,
        })),
        fc
          .array(fc.record({ availableDeviceIDs: ids, mustIncludeDeviceIDs: ids, allocationSize: size }), {
            maxLength: 4,
          })
          .map((containerRequests) => ({
            path: PATHS.getPreferredAllocation.path,
            body: PreferredAllocationRequest.encode({ containerRequests }).finish(),
            containers: containerRequests.length,
          })),
        ids.map((devicesIds) => ({
          path: PATHS.preStartContainer.path,
          body: PreStartContainerRequest.encode({ devicesIds }).finish(),
          containers: 1,
        })),
      );
      const session = sessionOn(path);
      await fc.assert(
        fc.asyncProperty(request, async ({ path: method, body, containers }) => {
          const outcome = await (
            await session()
          ).call(method, grpcFrame(body), {
            timeoutMs: CALL_MS,
          });
          // UNKNOWN or INTERNAL would be an exception the plugin did not mean; the rest name what was wrong.
          expect({ resource, method, outcome: describeOutcome(outcome) }).toEqual({
            resource,
            method,
            outcome: expect.stringMatching(/^status (0|3|5|9|12): /),
          });
          count(`well-formed, ${describeOutcome(outcome).split(':')[0] ?? ''}`);
          if (
            method === PATHS.getPreferredAllocation.path &&
            outcome.kind === 'status' &&
            outcome.code === 0
          ) {
            const reply = PreferredAllocationResponse.decode(outcome.replies[0] ?? new Uint8Array());
            expect(reply.containerResponses).toHaveLength(containers);
          }
        }),
        FUZZ,
      );
      await (await session()).close();
    }
    await expectServing();
    await expectFdsReleased();
  });

  it('refuses messages over 4 MiB with RESOURCE_EXHAUSTED and answers the largest legal ones in time', async () => {
    const MiB = 1024 * 1024;
    const ghosts = (n: number, prefix = 'g'): string[] =>
      Array.from({ length: n }, (_, i) => `${prefix}-${i.toString(36)}`);
    // Far more IDs and containers than any kubelet sends (it sends one container and the devices it was told of):
    // each list must be read once. Before core used sets there, the preferred allocation of 50,000 unknown
    // must-include IDs took minutes (a quadratic filter, and hooks that work through every must-include ID).
    const manyIds = grpcFrame(
      AllocateRequest.encode({ containerRequests: [{ devicesIds: ghosts(LONG_LIST) }] }).finish(),
    );
    const manyIdsToStart = grpcFrame(
      PreStartContainerRequest.encode({ devicesIds: ghosts(LONG_LIST) }).finish(),
    );
    const overLimit = [
      ['oversized message', grpcFrame(Buffer.alloc(5 * MiB, 0x0a)), true],
      ['4 GiB declared, 10 bytes sent', grpcFrame(Buffer.alloc(10), { declaredLength: 0xffffffff }), true],
      [
        '4 MiB + 1 declared, request open',
        grpcFrame(Buffer.alloc(100), { declaredLength: 4 * MiB + 1 }),
        false,
      ],
    ] as const;
    for (const { resource, path } of target.sockets) {
      const session = sessionOn(path);
      for (const [kind, body, endStream] of overLimit) {
        count(kind);
        const outcome = await (
          await session()
        ).call(PATHS.allocate.path, body, { endStream, timeoutMs: CALL_MS });
        expect({ resource, kind, outcome: describeOutcome(outcome) }).toEqual({
          resource,
          kind,
          outcome: expect.stringMatching(/^status 8: Received message larger than max/),
        });
      }
      const id = target.sim.resource(resource)?.healthy[0] ?? '';
      const manyContainers = grpcFrame(
        AllocateRequest.encode({
          containerRequests: Array.from({ length: MANY_CONTAINERS }, () => ({
            devicesIds: [id],
          })),
        }).finish(),
      );
      const longLists = grpcFrame(
        PreferredAllocationRequest.encode({
          containerRequests: [
            {
              availableDeviceIDs: [
                ...(target.sim.resource(resource)?.healthy ?? []),
                ...ghosts(LONG_LIST / 2),
              ],
              mustIncludeDeviceIDs: ghosts(LONG_LIST / 2, 'm'),
              allocationSize: LONG_LIST / 2 + 1,
            },
          ],
        }).finish(),
      );
      const legal = [
        ['Allocate, 100,000 unknown IDs', PATHS.allocate.path, manyIds, /^status 3: .*unknown device IDs/],
        ['Allocate, 10,000 containers', PATHS.allocate.path, manyContainers, /^status 3: .*at most 256/],
        [
          'GetPreferredAllocation, 2 × 50,000 IDs',
          PATHS.getPreferredAllocation.path,
          longLists,
          /^status (0|12): /,
        ],
        ['PreStartContainer, 100,000 IDs', PATHS.preStartContainer.path, manyIdsToStart, /^status 0: /],
      ] as const;
      for (const [kind, method, body, expected] of legal) {
        count(kind);
        const began = Date.now();
        const outcome = await (await session()).call(method, body, { timeoutMs: CALL_MS });
        slowest[kind] = Math.max(slowest[kind] ?? 0, Date.now() - began);
        expect({ resource, kind, outcome: describeOutcome(outcome).slice(0, 200) }).toEqual({
          resource,
          kind,
          outcome: expect.stringMatching(expected),
        });
      }
      await (await session()).close();
    }
    await expectServing();
    await expectFdsReleased();
  });

  /**
   * The concurrent round: on every socket at once, `STREAMS_PER_KIND` ListAndWatch streams and as
   * many Allocates over `CONNECTIONS` connections; every stream gets its first message and every Allocate an OK.
   * Then the sample node's fault device fails and recovers while the streams are open, and every stream of its
   * resource must hear both. Returns the peak RSS and fds seen.
   */
  async function concurrentRound(): Promise<{ rssMiB: number; fds: number }> {
    let peak = { rssMiB: 0, fds: 0 };
    const sample = (): void => {
      peak = { rssMiB: Math.max(peak.rssMiB, rssMiB(pid)), fds: Math.max(peak.fds, openFds(pid)) };
    };
    const { fault } = target.node;
    await Promise.all(
      target.sockets.map(async ({ resource, path }) => {
        const sessions = await Promise.all(
          Array.from({ length: CONNECTIONS }, () => createWireSession(path)),
        );
        const on = (i: number): WireSession => sessions[i % CONNECTIONS] as WireSession;
        const id = target.sim.resource(resource)?.healthy[0] ?? '';
        const allocate = grpcFrame(
          AllocateRequest.encode({ containerRequests: [{ devicesIds: [id] }] }).finish(),
        );
        const [streams, allocations] = await Promise.all([
          Promise.all(
            Array.from({ length: STREAMS_PER_KIND }, (_, i) =>
              on(i).open(PATHS.listAndWatch.path, EMPTY, { timeoutMs: CALL_MS }),
            ),
          ),
          Promise.all(
            Array.from({ length: STREAMS_PER_KIND }, (_, i) =>
              on(i).call(PATHS.allocate.path, allocate, { timeoutMs: CALL_MS }),
            ),
          ),
        ]);
        count('ListAndWatch, concurrent', streams.length);
        count('Allocate, concurrent', allocations.length);
        sample();
        const tally = (outcomes: readonly string[]): Record<string, number> =>
          outcomes.reduce<Record<string, number>>((all, o) => ({ ...all, [o]: (all[o] ?? 0) + 1 }), {});
        expect({
          resource,
          streams: tally(
            streams.map((s) => (s.outcome.kind === 'message' ? 'first message' : s.outcome.kind)),
          ),
          allocations: tally(allocations.map((o) => describeOutcome(o))),
        }).toEqual({
          resource,
          streams: { 'first message': STREAMS_PER_KIND },
          allocations: { 'status 0: OK': STREAMS_PER_KIND },
        });
        if (resource === fault.resource) {
          // Every open stream hears of a device going unhealthy and of its recovery, as the kubelet's does.
          for (const [act, health, messages] of [
            [fault.fail, 'unhealthy', 2],
            [fault.recover, 'healthy', 3],
          ] as const) {
            act();
            await target.sim.until(resource, (state) => state[health].includes(fault.deviceId), SETTLE_MS);
            const heard = await Promise.all(streams.map((s) => s.waitForMessages(messages, SETTLE_MS)));
            expect({ resource, health, heard: heard.filter(Boolean).length }).toEqual({
              resource,
              health,
              heard: STREAMS_PER_KIND,
            });
          }
          count('fan-out messages', 2 * STREAMS_PER_KIND);
        }
        await Promise.all(streams.map((s) => s.cancel()));
        await Promise.all(sessions.map((s) => s.close()));
      }),
    );
    return peak;
  }

  it('serves thousands of concurrent streams and Allocates, fans out to all, and gives fds and memory back', async () => {
    // Measured after a full garbage collection: V8 alone would leave the garbage of thousands of calls around.
    const before = { heapMiB: await heapAfterGcMiB(inspector), rssMiB: rssMiB(pid), fds: openFds(pid) };
    const peak = await concurrentRound();
    await expectServing();
    const fds = await expectFdsReleased();
    const after = { heapMiB: await heapAfterGcMiB(inspector), rssMiB: rssMiB(pid) };
    const mib = (n: number): string => n.toFixed(1);
    usage.push(
      `heap after GC ${mib(before.heapMiB)} → ${mib(after.heapMiB)} MiB; RSS ${mib(before.rssMiB)} → peak ` +
        `${mib(peak.rssMiB)} → ${mib(after.rssMiB)} MiB; fds ${before.fds} → peak ${peak.fds} → ${fds}`,
    );
    expect(after.heapMiB).toBeLessThan(before.heapMiB + HEAP_SLACK_MIB);
    expect(after.rssMiB).toBeLessThan(before.rssMiB + RSS_SLACK_MIB);
  });
});
