/** Options of {@link discoverDocumentProblems}. */
export interface DiscoverDocumentCheckOptions {
  /** A string no host path may contain (the fixture's base: host paths are `/dev/…`, never the root prefix). */
  readonly forbiddenPathPart?: string;
}

/** A device of the contract's `discover --output json` document, as far as the checks need it. */
export interface CheckedDevice {
  readonly resourceName: string;
  readonly id: string;
  readonly health: string;
}

/** The document's devices and diagnostics when it is well-formed, or what is wrong with it. */
export type DiscoverDocumentCheck =
  | {
      readonly ok: true;
      readonly devices: readonly CheckedDevice[];
      /** Every `excluded` entry and warning, as one string each (`excluded <path>: <reason>`, `warning <text>`). */
      readonly diagnostics: readonly string[];
    }
  | { readonly ok: false; readonly problems: readonly string[] };

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Checks `discover --output json` output against the plugin contract: one JSON document; every resource named;
 * every device with a non-empty ID free of control characters and unique in its resource, health exactly
 * `Healthy` or `Unhealthy`, NUMA nodes as non-negative integers, device specs and mounts with absolute host
 * paths; every exclusion with a path and a reason; warnings as strings.
 */
export function discoverDocumentProblems(
  stdout: string,
  options: DiscoverDocumentCheckOptions = {},
): DiscoverDocumentCheck {
  let doc: unknown;
  try {
    doc = JSON.parse(stdout);
  } catch (error) {
    return { ok: false, problems: [`stdout is not one JSON document: ${(error as Error).message}`] };
  }
  const problems: string[] = [];
  const devices: CheckedDevice[] = [];
  const diagnostics: string[] = [];
  const record = (value: unknown): Record<string, unknown> | undefined =>
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  const list = (value: unknown, where: string): unknown[] => {
    if (Array.isArray(value)) return value;
    problems.push(`${where} is not an array`);
    return [];
  };
  const hostPath = (value: unknown, where: string): void => {
    if (typeof value !== 'string' || !value.startsWith('/'))
      problems.push(`${where} is not an absolute path`);
    else if (options.forbiddenPathPart !== undefined && value.includes(options.forbiddenPathPart))
      problems.push(`${where} ${value} holds the root prefix ${options.forbiddenPathPart}`);
  };
  const top = record(doc);
  if (top === undefined) return { ok: false, problems: ['the document is not an object'] };
  list(top.resources, 'resources').forEach((value, r) => {
    const resource = record(value);
    const name = resource?.resourceName;
    if (typeof name !== 'string' || name === '') problems.push(`resources[${r}] has no resourceName`);
    const seen = new Set<string>();
    list(resource?.devices, `resources[${r}].devices`).forEach((item, d) => {
      const where = `${String(name)} device ${d}`;
      const device = record(item) ?? {};
      const { id, health } = device;
      if (typeof id !== 'string' || id === '') problems.push(`${where}: empty or missing id`);
      else if (CONTROL.test(id)) problems.push(`${where}: id ${JSON.stringify(id)} holds control characters`);
      else if (seen.has(id)) problems.push(`${where}: id ${id} listed twice`);
      if (typeof id === 'string') seen.add(id);
      if (health !== 'Healthy' && health !== 'Unhealthy')
        problems.push(`${where}: health ${JSON.stringify(health)} is neither Healthy nor Unhealthy`);
      for (const node of list(device.numaNodes, `${where}.numaNodes`))
        if (!Number.isSafeInteger(node) || (node as number) < 0)
          problems.push(`${where}: NUMA node ${JSON.stringify(node)} is not a non-negative integer`);
      list(device.deviceSpecs, `${where}.deviceSpecs`).forEach((spec, s) =>
        hostPath(record(spec)?.hostPath, `${where}.deviceSpecs[${s}].hostPath`),
      );
      list(device.mounts, `${where}.mounts`).forEach((mount, m) =>
        hostPath(record(mount)?.hostPath, `${where}.mounts[${m}].hostPath`),
      );
      devices.push({ resourceName: String(name), id: String(id), health: String(health) });
    });
  });
  list(top.excluded, 'excluded').forEach((value, e) => {
    const entry = record(value);
    if (typeof entry?.path !== 'string' || typeof entry.reason !== 'string' || entry.reason === '')
      problems.push(`excluded[${e}] lacks a path or a reason`);
    else diagnostics.push(`excluded ${entry.path}: ${entry.reason}`);
  });
  list(top.warnings, 'warnings').forEach((value, w) => {
    if (typeof value !== 'string' || value === '') problems.push(`warnings[${w}] is not a message`);
    else diagnostics.push(`warning ${value}`);
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, devices, diagnostics };
}
