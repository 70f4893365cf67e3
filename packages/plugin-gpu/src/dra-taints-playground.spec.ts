import { ok, strictEqual } from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import {
  claimManifest,
  claimRequest,
  deviceClassManifest,
  kubectl,
  podManifest,
  startPlaygroundDriver,
  type PlaygroundDriver,
} from '@kdp/dra/testing';
import type { XidEvent } from './health/xid-health';
import { createGpuPlugin } from './plugin';
import { rootFlags } from './testing/fixture-devices';
import { buildNvidiaMachine, NVIDIA_UUIDS } from './testing/machines';

jest.setTimeout(180_000);

// Issue 28 item 2 (KEP 5055): health as device taints, proven with the DRA playground and real kubectl against
// `gpu-device-plugin serve --mode dra` on the NVIDIA fixture, Xids fired by the test.
const DRIVER = 'gpu.kdp.dev';
const UUID = NVIDIA_UUIDS['0000:04:00.0'];
/** How long an Xid keeps the GPU Unhealthy: long enough for the steps that need the taint. */
const HOLD_SECONDS = 30;

interface SliceDeviceJson {
  name: string;
  attributes?: Record<string, { string?: string }>;
  taints?: { key: string; value?: string; effect: string; timeAdded?: string }[];
}
interface PodJson {
  metadata: { name: string };
  spec: { nodeName?: string };
  status: {
    phase?: string;
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
  };
}

/** The GPU's device in the node's slices as `kubectl get resourceslices -o yaml` prints it (undefined: absent). */
async function gpuDevice(setup: PlaygroundDriver): Promise<SliceDeviceJson | undefined> {
  const list = parse(await kubectl(setup.kubeconfig, ['get', 'resourceslices', '-o', 'yaml'])) as {
    items: { spec: { devices?: SliceDeviceJson[] } }[];
  };
  return list.items
    .flatMap((slice) => slice.spec.devices ?? [])
    .find((d) => d.attributes?.['id']?.string === UUID);
}

/** Polls until `done` accepts the value `read` gives; rejects with the last one after `timeoutMs`. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`not as expected in time: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** A claim of the GPU (by its UUID), with `tolerations` (YAML) in its request, and a pod using it. */
const claimAndPod = (name: string, tolerations = ''): string =>
  [
    claimManifest(
      name,
      claimRequest('gpu', `device.attributes["${DRIVER}"].id == "${UUID}"`, DRIVER) + tolerations,
    ),
    podManifest(name, [name], [[name, 'gpu']]),
  ].join('---');

describe('gpu-device-plugin serve --mode dra: health as device taints in the DRA playground', () => {
  let dir = '';
  let remove = (): void => undefined;
  let setup: PlaygroundDriver | undefined;
  let emit: (event: XidEvent) => void = () => undefined;
  const started = (): PlaygroundDriver => {
    if (setup === undefined) throw new Error('the playground did not start');
    return setup;
  };
  const pod = async (name: string): Promise<PodJson | undefined> => {
    const list = JSON.parse(await kubectl(started().kubeconfig, ['get', 'pods', '-o', 'json'])) as {
      items: PodJson[];
    };
    return list.items.find((p) => p.metadata.name === name);
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kdp-taints-'));
    const fixture = buildNvidiaMachine();
    remove = () => fixture.remove();
    const config = join(dir, 'gpu.yaml');
    writeFileSync(config, `health:\n  xidHoldSeconds: ${HOLD_SECONDS}\n`);
    const plugin = createGpuPlugin({
      xidSource: () => ({ start: (onEvent) => ((emit = onEvent), () => undefined) }),
    });
    setup = await startPlaygroundDriver({
      plugin,
      driver: DRIVER,
      dir,
      flags: [...rootFlags(fixture), '--poll-interval', '1h', '--config', config],
      devRoot: fixture.devRoot,
      procRoot: fixture.procRoot,
    });
    await kubectl(setup.kubeconfig, ['apply', '-f', '-'], deviceClassManifest(DRIVER));
  });
  afterAll(async () => {
    await setup?.stop();
    remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps an Unhealthy GPU in its slice with a kdp.dev/unhealthy NoSchedule taint naming the problem', async () => {
    const s = started();
    strictEqual((await gpuDevice(s))?.taints, undefined);
    emit({ uuid: UUID, xid: 94 });
    const device = await until(
      () => gpuDevice(s),
      (d) => (d?.taints?.length ?? 0) > 0,
    );
    strictEqual(device?.taints?.length, 1);
    const [taint] = device?.taints ?? [];
    strictEqual(taint?.key, 'kdp.dev/unhealthy');
    strictEqual(taint?.value, 'NVML-reported-critical-Xid-94');
    strictEqual(taint?.effect, 'NoSchedule');
    ok(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(taint?.timeAdded ?? ''),
      `timeAdded ${String(taint?.timeAdded)}`,
    );
  });

  it('leaves a pod whose claim does not tolerate the taint Pending with the scheduler’s reason', async () => {
    const s = started();
    await kubectl(s.kubeconfig, ['apply', '-f', '-'], claimAndPod('intolerant'));
    const p = await until(
      () => pod('intolerant'),
      (x) => (x?.status.conditions ?? []).some((c) => c.type === 'PodScheduled' && c.status === 'False'),
    );
    strictEqual(p?.spec.nodeName, undefined);
    const scheduled = p?.status.conditions?.find((c) => c.type === 'PodScheduled');
    strictEqual(scheduled?.reason, 'Unschedulable');
    ok(/cannot allocate all claims/.test(scheduled?.message ?? ''), String(scheduled?.message));
    await kubectl(s.kubeconfig, ['delete', 'pod,resourceclaim', 'intolerant', '--wait=false']);
  });

  it('schedules and prepares a claim tolerating kdp.dev/unhealthy on the tainted GPU', async () => {
    const s = started();
    const tolerations = `
        tolerations:
        - key: kdp.dev/unhealthy
          operator: Exists
          effect: NoSchedule`;
    await kubectl(s.kubeconfig, ['apply', '-f', '-'], claimAndPod('tolerant', tolerations));
    const p = await until(
      () => pod('tolerant'),
      (x) => x?.status.phase === 'Running',
    );
    strictEqual(p?.spec.nodeName, s.nodeName);
    const claim = JSON.parse(
      await kubectl(s.kubeconfig, ['get', 'resourceclaim', 'tolerant', '-o', 'json']),
    ) as { status: { allocation: { devices: { results: { device: string; tolerations?: unknown[] }[] } } } };
    const [result] = claim.status.allocation.devices.results;
    strictEqual(result?.device, (await gpuDevice(s))?.name);
    strictEqual(result?.tolerations?.length, 1);
    // Still tainted: the pod runs on the Unhealthy GPU because it tolerates the taint.
    strictEqual((await gpuDevice(s))?.taints?.[0]?.effect, 'NoSchedule');
  });

  it('evicts a running pod that does not tolerate NoExecute when the GPU is lost (Xid 79)', async () => {
    const s = started();
    ok((await pod('tolerant'))?.status.phase === 'Running');
    emit({ uuid: UUID, xid: 79 });
    await until(
      () => gpuDevice(s),
      (d) => d?.taints?.[0]?.effect === 'NoExecute',
    );
    strictEqual((await gpuDevice(s))?.taints?.[0]?.value, 'NVML-reported-critical-Xid-79');
    await until(
      () => pod('tolerant'),
      (x) => x === undefined,
    );
    const events = await kubectl(s.kubeconfig, ['get', 'events', '-o', 'json']);
    ok(events.includes('DeviceTaintManagerEviction'), events);
  });

  it('removes the taint when the GPU recovers', async () => {
    const s = started();
    ok((await gpuDevice(s))?.taints !== undefined);
    const device = await until(
      () => gpuDevice(s),
      (d) => d !== undefined && d.taints === undefined,
      HOLD_SECONDS * 1000 + 30_000,
    );
    ok(device !== undefined);
  });
});
