import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  createDevicePlugin,
  createFsWatchTrigger,
  createPollingSource,
  createPushSource,
  defineResource,
  serveDevicePlugin,
  type DevicePlugin,
  type Logger,
  type PluginDevice,
  type PluginMetrics,
  type PushSource,
  type ScanTrigger,
} from '@kdp/core';
import { assignPools, poolIndex } from './assign-pools';
import { pciDeviceInfo } from './device-info';
import { createDeviceInfoStore } from './device-info-store';
import type { NodeScan } from './nic-function';
import { poolDevices, withVanished, type SriovPayload } from './pool-devices';
import { preferVfs } from './prefer-vfs';
import { createScanReaders, scanNode } from './scan-node';
import { containerAllocation, deviceContribution, type HostFacts } from './sriov-allocation';
import { configWarnings, poolResourceName, type SriovConfig } from './sriov-config';

/** Everything `serve` needs; the CLI fills it from the flags and the serve context. */
export interface ServeSriovOptions {
  readonly sysfsRoot: string;
  readonly procRoot: string;
  readonly devRoot: string;
  readonly devicePluginDir: string;
  readonly devinfoDir: string;
  readonly defaultPrefix: string;
  /** Rescan period (ms); fs.watch on the PCI device list triggers scans in between. */
  readonly pollIntervalMs: number;
  /** How long a vanished device stays advertised as Unhealthy (ms). */
  readonly vanishedGraceMs: number;
  readonly logger: Logger;
  readonly signal: AbortSignal;
  readonly metrics: PluginMetrics;
  /** The running configuration. */
  config(): SriovConfig;
  /** Subscribes to configuration reloads. */
  onConfigChange(listener: () => void): () => void;
  /** Called with the plugin once created (tests and readiness use it). */
  onPlugin?(plugin: DevicePlugin): void;
  readonly now?: () => number;
}

type Device = PluginDevice<SriovPayload>;

/**
 * Runs the SR-IOV device plugin until the signal fires: one gRPC resource per pool of the configuration,
 * a rescan on every sysfs change seen by fs.watch and at least every `pollIntervalMs`, pools added and
 * removed on configuration reloads, device-info files written at Allocate and removed when a device goes.
 */
export async function serveSriov(options: ServeSriovOptions): Promise<void> {
  const { logger } = options;
  const now = options.now ?? Date.now;
  const store = createDeviceInfoStore(options.devinfoDir);
  const sources = new Map<string, PushSource<SriovPayload>>();
  let previousIndex = new Map<string, string>();
  let previousLists = new Map<string, readonly Device[]>();
  const vanished = new Map<string, Map<string, number>>();
  let latestScan: NodeScan | undefined;
  let warned = new Set<string>();

  const plugin = createDevicePlugin({
    devicePluginDir: options.devicePluginDir,
    logger,
    handleSignals: false,
  });
  options.onPlugin?.(plugin);

  const hostFacts = (): HostFacts => ({
    rdmaCharDevices: latestScan?.rdmaCharDevices ?? new Map(),
    vhostNet: existsSync(join(options.devRoot, 'vhost-net')) && existsSync(join(options.devRoot, 'net/tun')),
  });

  const addPool = (resourceName: string): void => {
    const source = createPushSource<SriovPayload>();
    sources.set(resourceName, source);
    plugin.addResource(
      defineResource<SriovPayload>({
        name: resourceName,
        source,
        options: { getPreferredAllocationAvailable: true },
        allocate: async ({ devices }) => {
          const first = devices[0]?.payload;
          if (first === undefined) return {};
          const members = devices.map((d) => d.payload?.member).filter((m) => m !== undefined);
          const host = hostFacts();
          const allocation = containerAllocation(resourceName, members, first.pool, host);
          for (const member of members) {
            const contribution = deviceContribution(member, first.pool, host);
            await store.write(
              resourceName,
              member.fn.address,
              pciDeviceInfo(member.fn.address, contribution.rdmaDevices),
            );
          }
          logger.info({ resource: resourceName, devices: members.map((m) => m.fn.address) }, 'allocated');
          return allocation;
        },
        preferredAllocation: ({ available, mustInclude, size }) =>
          preferVfs({
            available: available.map((d) => ({
              id: d.id,
              ...(d.numaNodes?.[0] !== undefined ? { numaNode: d.numaNodes[0] } : {}),
              pf: d.payload?.member.fn.vf?.pfAddress ?? d.id,
              index: d.payload?.member.fn.vf?.index ?? 0,
            })),
            mustInclude,
            size,
            policy: available[0]?.payload?.pool.pfAllocation ?? 'pack',
          }),
      }),
    );
  };

  /** Brings the served resources in line with the configuration. */
  const reconcilePools = async (config: SriovConfig): Promise<void> => {
    const wanted = new Set<string>();
    for (const pool of config.resourceList) {
      if (pool.deviceType !== 'auxNetDevice') wanted.add(poolResourceName(pool, options.defaultPrefix));
    }
    for (const name of [...sources.keys()]) {
      if (wanted.has(name)) continue;
      sources.delete(name);
      await plugin.removeResource(name);
      await store.prune(name, new Set());
      logger.info({ resource: name }, 'pool removed from the configuration; resource stopped');
    }
    for (const name of wanted) {
      if (sources.has(name)) continue;
      try {
        addPool(name);
        logger.info({ resource: name }, 'pool added');
      } catch (error) {
        sources.delete(name);
        logger.error({ resource: name, err: String(error) }, 'pool cannot be served');
      }
    }
  };

  const logConfigWarnings = (config: SriovConfig): void => {
    const next = new Set(configWarnings(config, options.defaultPrefix));
    for (const warning of next) if (!warned.has(warning)) logger.warn({}, warning);
    warned = next;
  };

  const scan = async (): Promise<Device[]> => {
    const config = options.config();
    latestScan = await scanNode(createScanReaders(options.sysfsRoot, options.procRoot));
    const assignment = assignPools(latestScan, config, {
      defaultPrefix: options.defaultPrefix,
      previous: previousIndex,
    });
    previousIndex = poolIndex(assignment);
    const lists = withVanished(
      poolDevices(assignment),
      previousLists,
      vanished,
      now(),
      options.vanishedGraceMs,
    );
    previousLists = lists;
    return [...lists.values()].flat();
  };

  let fireScan: (() => void) | undefined;
  const manual: ScanTrigger = (fire) => {
    fireScan = fire;
    return () => (fireScan = undefined);
  };
  const root = (path: string): string => join(options.sysfsRoot, path);
  const node = createPollingSource<SriovPayload>({
    scan,
    intervalMs: options.pollIntervalMs,
    triggers: [createFsWatchTrigger([root('bus/pci/devices'), root('class/net')]), manual],
    onError: (error) => logger.error({ err: String(error) }, 'scan failed; keeping the last device lists'),
  });

  let lastHealth = new Map<string, string>();
  const distribute = (devices: readonly Device[]): void => {
    const byResource = new Map<string, Device[]>();
    for (const name of sources.keys()) byResource.set(name, []);
    for (const device of devices) byResource.get(device.payload?.resourceName ?? '')?.push(device);
    const health = new Map<string, string>();
    for (const [name, list] of byResource) {
      sources.get(name)?.set(list);
      for (const device of list) {
        const key = `${name} ${device.id}`;
        health.set(key, device.health);
        const before = lastHealth.get(key);
        if (before !== undefined && before !== device.health) {
          logger.info(
            {
              resource: name,
              device: device.id,
              health: device.health,
              problem: device.payload?.member.problem,
            },
            'device health changed',
          );
        }
      }
      void store
        .prune(name, new Set(list.map((d) => d.id)))
        .catch((error: unknown) => logger.warn({ err: String(error) }, 'cannot remove a device-info file'));
    }
    lastHealth = health;
  };

  const initial = options.config();
  logConfigWarnings(initial);
  await reconcilePools(initial);
  const unsubscribeConfig = options.onConfigChange(() => {
    const config = options.config();
    logConfigWarnings(config);
    void reconcilePools(config).then(() => fireScan?.());
  });
  const unsubscribeNode = node.subscribe(distribute);
  try {
    await serveDevicePlugin({ metrics: options.metrics, signal: options.signal }, plugin);
  } finally {
    unsubscribeNode();
    unsubscribeConfig();
    await store.removeAll().catch(() => undefined);
  }
}
