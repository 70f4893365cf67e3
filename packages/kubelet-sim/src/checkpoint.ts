import { readFileSync, renameSync, writeFileSync } from 'node:fs';

/** One container's devices of one resource, as the kubelet checkpoints them (P-31). */
export interface PodDeviceEntry {
  readonly PodUID: string;
  readonly ContainerName: string;
  readonly ResourceName: string;
  /** Device IDs by NUMA node; `"-1"` for devices without topology. */
  readonly DeviceIDs: Record<string, string[]>;
  /** Base64 of the protobuf-encoded ContainerAllocateResponse. */
  readonly AllocResp: string;
}

/** The checkpointed state: allocations and the healthy devices of every registered resource (P-31). */
export interface CheckpointData {
  readonly PodDeviceEntries: PodDeviceEntry[];
  readonly RegisteredDevices: Record<string, string[]>;
}

/** The file `kubelet_internal_checkpoint` (P-31). The checksum is opaque: not the kubelet's spew-based one. */
export interface CheckpointFile {
  readonly Data: CheckpointData;
  readonly Checksum: number;
  readonly BootID?: string;
}

/** FNV-32a of a string's UTF-8 bytes. */
function fnv32a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** The simulator's checksum of the data (FNV-32a over its JSON; the kubelet's spew dump is not reproducible). */
export function checkpointChecksum(data: CheckpointData): number {
  return fnv32a(JSON.stringify(data));
}

function readBootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Writes the checkpoint atomically (temporary file, then rename), mode 0600. */
export function writeCheckpoint(path: string, data: CheckpointData): void {
  const bootId = readBootId();
  const file: CheckpointFile = {
    Data: data,
    Checksum: checkpointChecksum(data),
    ...(bootId === undefined ? {} : { BootID: bootId }),
  };
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, JSON.stringify(file), { mode: 0o600 });
  renameSync(tmp, path);
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isStringArray = (v: unknown): v is string[] =>
  Array.isArray(v) && v.every((s) => typeof s === 'string');

function parseDeviceIds(value: unknown): Record<string, string[]> | undefined {
  // V1 format (<= 1.19): a flat list, read as NUMA node 0 (P-31).
  if (isStringArray(value)) return { '0': [...value] };
  if (!isRecord(value)) return undefined;
  const out: Record<string, string[]> = {};
  for (const [node, ids] of Object.entries(value)) {
    if (!/^-?\d+$/.test(node) || !isStringArray(ids)) return undefined;
    out[node] = [...ids];
  }
  return out;
}

function parseEntry(value: unknown): PodDeviceEntry | undefined {
  if (!isRecord(value)) return undefined;
  const { PodUID, ContainerName, ResourceName, AllocResp } = value;
  const DeviceIDs = parseDeviceIds(value['DeviceIDs']);
  if (typeof PodUID !== 'string' || typeof ContainerName !== 'string' || typeof ResourceName !== 'string') {
    return undefined;
  }
  if (DeviceIDs === undefined || typeof AllocResp !== 'string') return undefined;
  return { PodUID, ContainerName, ResourceName, DeviceIDs, AllocResp };
}

/** Parses checkpoint text; `undefined` for anything malformed or with a wrong checksum (the kubelet starts empty then). */
export function parseCheckpoint(text: string): CheckpointData | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(json) || !isRecord(json['Data'])) return undefined;
  const data = json['Data'];
  const rawEntries = data['PodDeviceEntries'] ?? [];
  const rawRegistered = data['RegisteredDevices'] ?? {};
  if (!Array.isArray(rawEntries) || !isRecord(rawRegistered)) return undefined;
  const entries: PodDeviceEntry[] = [];
  for (const raw of rawEntries) {
    const entry = parseEntry(raw);
    if (entry === undefined) return undefined;
    entries.push(entry);
  }
  const registered: Record<string, string[]> = {};
  for (const [resource, ids] of Object.entries(rawRegistered)) {
    if (!isStringArray(ids)) return undefined;
    registered[resource] = [...ids];
  }
  const parsed: CheckpointData = { PodDeviceEntries: entries, RegisteredDevices: registered };
  if (json['Checksum'] !== checkpointChecksum(parsed)) return undefined;
  return parsed;
}

/** Reads and parses a checkpoint file; `undefined` when it is missing or corrupt. */
export function readCheckpoint(path: string): CheckpointData | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  return parseCheckpoint(text);
}
