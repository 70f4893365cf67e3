import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';

/** The kubelet's DRA checkpoint file name (in its root directory; kubelet-sim writes it beside its own). */
export const DraCheckpointFileName = 'dra_manager_state';

/** One device of a prepared claim, as the kubelet's claim info keeps it. */
export interface DraCheckpointDevice {
  readonly PoolName: string;
  readonly DeviceName: string;
  readonly RequestNames: string[];
  readonly CDIDeviceIDs: string[];
  readonly ShareID?: string;
}

/** A claim the kubelet knows: its identity, the pods using it and, once prepared, each driver's devices. */
export interface DraCheckpointClaim {
  readonly ClaimUID: string;
  readonly ClaimName: string;
  readonly Namespace: string;
  readonly PodUIDs: string[];
  readonly DriverState: Record<string, { Devices: DraCheckpointDevice[] }>;
}

/** A pod as kubelet-sim remembers it across restarts (the real kubelet reads pods from the API server). */
export interface DraCheckpointPod {
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
  readonly containers: Array<{ name: string; claims: string[] }>;
  /** Claim names, or whole claim objects when no API server is configured. */
  readonly claims: unknown[];
}

/** The checkpoint's content. */
export interface DraCheckpointData {
  readonly Claims: DraCheckpointClaim[];
  readonly Pods: DraCheckpointPod[];
}

const checksum = (data: DraCheckpointData): string =>
  createHash('sha256').update(JSON.stringify(data)).digest('hex').slice(0, 16);

/** Writes the checkpoint atomically, mode 0600. */
export function writeDraCheckpoint(path: string, data: DraCheckpointData): void {
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, JSON.stringify({ Data: data, Checksum: checksum(data) }), { mode: 0o600 });
  renameSync(tmp, path);
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads the checkpoint; `undefined` when missing, malformed or with a wrong checksum (the kubelet starts empty). */
export function readDraCheckpoint(path: string): DraCheckpointData | undefined {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
  if (!isRecord(json) || !isRecord(json['Data'])) return undefined;
  const data = json['Data'] as unknown as DraCheckpointData;
  if (!Array.isArray(data.Claims) || !Array.isArray(data.Pods)) return undefined;
  return json['Checksum'] === checksum(data) ? data : undefined;
}
