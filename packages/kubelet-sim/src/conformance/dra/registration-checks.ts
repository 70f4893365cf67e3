import { isAbsolute } from 'node:path';
import { credentials } from '@grpc/grpc-js';
import { type draV1, pluginregistration } from '@kdp/api';
import { callUnary, goErrorString, pluginChannelOptions } from '../../grpc-util';
import { connectDraEndpoint } from '../../dra/dra-endpoint';
import { draHealthServices, draPluginServices, DraPluginType } from '../../dra/dra-services';
import { checkResult } from '../check-catalog';
import type { ConformanceCheck } from '../conformance-check';
import { draCheckCatalog } from './dra-check-catalog';

const dnsSubdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** What the suite learns from the registration socket itself: GetInfo, and whether NotifyRegistrationStatus answers. */
export interface RegistrationProbe {
  readonly info?: pluginregistration.PluginInfo;
  readonly infoError?: string;
  readonly notifyError?: string;
}

/**
 * Calls GetInfo on a registration socket, then repeats the kubelet's successful NotifyRegistrationStatus
 * (`plugin_registered: true`), which the kubelet sends after every accepted registration.
 */
export async function probeRegistration(socketPath: string, timeoutMs: number): Promise<RegistrationProbe> {
  const client = new pluginregistration.RegistrationClient(
    `unix://${socketPath}`,
    credentials.createInsecure(),
    pluginChannelOptions,
  );
  try {
    let info: pluginregistration.PluginInfo;
    try {
      info = await callUnary(client, client.getInfo, {}, timeoutMs);
    } catch (err) {
      return { infoError: goErrorString(err) };
    }
    try {
      await callUnary(
        client,
        client.notifyRegistrationStatus,
        { pluginRegistered: true, error: '' },
        timeoutMs,
      );
      return { info };
    } catch (err) {
      return { info, notifyError: goErrorString(err) };
    }
  } finally {
    client.close();
  }
}

/** `plugin-info`: type, name and endpoint of GetInfo. */
export function checkPluginInfo(info: pluginregistration.PluginInfo, driver: string): ConformanceCheck {
  const problems: string[] = [];
  if (info.type !== DraPluginType)
    problems.push(`type is ${JSON.stringify(info.type)}, not "${DraPluginType}"`);
  if (info.name !== driver)
    problems.push(`name is ${JSON.stringify(info.name)}, not ${JSON.stringify(driver)}`);
  if (info.name.length > 63 || !dnsSubdomain.test(info.name)) {
    problems.push(`name ${JSON.stringify(info.name)} is not a DNS subdomain of at most 63 characters`);
  }
  if (!isAbsolute(info.endpoint)) {
    problems.push(
      `endpoint ${JSON.stringify(info.endpoint)} is not an absolute path (the kubelet dials it as given)`,
    );
  }
  return problems.length === 0
    ? checkResult(draCheckCatalog.pluginInfo, 'pass', `${info.name} at ${info.endpoint}`)
    : checkResult(draCheckCatalog.pluginInfo, 'fail', problems.join('; '));
}

/** `supported-services` and `service-order` of GetInfo's `supported_versions`. */
export function checkServices(supported: readonly string[]): ConformanceCheck[] {
  const { supportedServices, serviceOrder } = draCheckCatalog;
  const listed = `[${supported.join(', ')}]`;
  const services = supported.includes('v1.DRAPlugin')
    ? checkResult(supportedServices, 'pass', listed)
    : checkResult(
        supportedServices,
        'fail',
        `${listed} lacks v1.DRAPlugin, the service of DRA GA (Kubernetes 1.34)` +
          `${supported.some((s) => (draPluginServices as readonly string[]).includes(s)) ? '' : '; no kubelet accepts it'}`,
      );
  const problems: string[] = [];
  const duplicates = supported.filter((s, i) => supported.indexOf(s) !== i);
  if (duplicates.length > 0) problems.push(`${[...new Set(duplicates)].join(', ')} listed twice`);
  for (const family of [draPluginServices, draHealthServices]) {
    const order = family.filter((s) => supported.includes(s));
    const given = [...new Set(supported.filter((s) => (family as readonly string[]).includes(s)))];
    if (given.join() !== order.join()) {
      problems.push(
        `${given.join(' before ')}: the kubelet takes the first it supports, so the older one wins`,
      );
    }
  }
  const order =
    problems.length === 0
      ? checkResult(serviceOrder, 'pass', listed)
      : checkResult(serviceOrder, 'warn', problems.join('; '));
  return [services, order];
}

/** A direct connection to a driver's DRAPlugin service (v1 or v1beta1, as the kubelet chose). */
export interface DraPluginConnection {
  /** Resolves once connected; rejects after `timeoutMs`. */
  ready(timeoutMs: number): Promise<void>;
  prepare(claims: draV1.Claim[], timeoutMs: number): Promise<draV1.NodePrepareResourcesResponse>;
  unprepare(claims: draV1.Claim[], timeoutMs: number): Promise<draV1.NodeUnprepareResourcesResponse>;
  close(): void;
}

/** Connects to `endpoint` as the kubelet does, with the client of `service` (`v1beta1.DRAPlugin`, else v1). */
export function connectDraPlugin(driver: string, endpoint: string, service: string): DraPluginConnection {
  const waiters = new Set<() => void>();
  const connection = connectDraEndpoint({
    driver,
    endpoint,
    socketPath: endpoint,
    service: service === 'v1beta1.DRAPlugin' ? 'v1beta1.DRAPlugin' : 'v1.DRAPlugin',
    healthService: undefined,
    onConnectedChange: (connected) => {
      if (connected) for (const wake of [...waiters]) wake();
    },
  });
  return {
    ready: (timeoutMs) =>
      new Promise((resolve, reject) => {
        if (connection.connected) return resolve();
        const timer = setTimeout(() => {
          waiters.delete(wake);
          reject(new Error(`no connection to ${endpoint} within ${timeoutMs} ms`));
        }, timeoutMs);
        const wake = (): void => {
          clearTimeout(timer);
          waiters.delete(wake);
          resolve();
        };
        waiters.add(wake);
      }),
    prepare: (claims, timeoutMs) => connection.prepare(claims, timeoutMs),
    unprepare: (claims, timeoutMs) => connection.unprepare(claims, timeoutMs),
    close: () => connection.close(),
  };
}
