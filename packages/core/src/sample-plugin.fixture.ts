// A sample plugin run as its own process by tests and the benchmark: `node sample-plugin.js <dir> [devices]`.
// With an IPC channel it reports registrations and accepts device-list changes (for timing across processes).
import { createDevicePlugin } from './device-plugin';
import { createPushSource } from './device-source';
import type { PluginDevice } from './plugin-device';
import { topologyPreferredAllocation } from './topology-preferred-allocation';

const [dir = '/var/lib/kubelet/device-plugins', countArg = '8'] = process.argv.slice(2);
const count = Number.parseInt(countArg, 10);
const resource = process.env['KDP_SAMPLE_RESOURCE'] ?? 'example.com/sample';

const devices = (unhealthy: ReadonlySet<string>): PluginDevice<string>[] =>
  Array.from({ length: count }, (_, i) => ({
    id: `dev${i}`,
    health: unhealthy.has(`dev${i}`) ? 'Unhealthy' : 'Healthy',
    numaNodes: [i % 2],
    payload: `/dev/sample${i}`,
  }));

const source = createPushSource(devices(new Set()));
// The lifecycle leaves signals to its caller: SIGTERM and SIGINT stop the plugin through its abort signal.
const terminate = new AbortController();
for (const name of ['SIGTERM', 'SIGINT'] as const) process.once(name, () => terminate.abort());
const plugin = createDevicePlugin({
  devicePluginDir: dir,
  signal: terminate.signal,
  resources: [
    {
      name: resource,
      source,
      options: { getPreferredAllocationAvailable: true, preStartRequired: true },
      preferredAllocation: topologyPreferredAllocation(),
      preStartContainer: () => undefined,
      allocate: ({ devices: chosen }) => ({
        envs: { SAMPLE_DEVICES: chosen.map((d) => d.id).join(',') },
        devices: chosen.map((d) => ({
          containerPath: d.payload ?? '',
          hostPath: d.payload ?? '',
          permissions: 'rw',
        })),
      }),
    },
  ],
});

const send = (message: object): void => {
  if (process.send && process.connected) process.send(message);
};
const now = (): number => performance.timeOrigin + performance.now();

const allocateMs: number[] = [];
plugin.on((event) => {
  if (event.type === 'registered') send({ type: 'registered', at: event.at, endpoint: event.endpoint });
  if (event.type === 'allocate') allocateMs.push(event.durationMs);
});
process.on('message', (message: { type: string; unhealthy?: string[] }) => {
  if (message.type === 'set') {
    const at = now();
    source.set(devices(new Set(message.unhealthy ?? [])));
    send({ type: 'set', at });
  } else if (message.type === 'allocate-times') {
    send({ type: 'allocate-times', times: allocateMs.splice(0) });
  } else if (message.type === 'rss') {
    send({ type: 'rss', rss: process.memoryUsage().rss });
  }
});
process.on('disconnect', () => void plugin.stop());
// The IPC channel would keep the process alive; the plugin itself leaves no handle once stopped.
void plugin.stopped.then(() => process.connected && process.disconnect());
send({ type: 'started', at: now() });
void plugin.start();
