import type { DiscoverDocument } from './discover-result';

/**
 * Renders a discover document for people: one row per device (resource, ID, health, NUMA nodes, PCI
 * address, host device nodes), then the excluded candidates with their reasons, then the warnings.
 * Attributes are left to `--output json`.
 */
export function formatDiscoverTable(doc: DiscoverDocument): string {
  const rows: string[][] = [['RESOURCE', 'DEVICE', 'HEALTH', 'NUMA', 'PCI', 'DEVICE NODES']];
  for (const resource of doc.resources) {
    if (resource.devices.length === 0) rows.push([resource.resourceName, '(none)', '', '', '', '']);
    for (const d of resource.devices) {
      rows.push([
        resource.resourceName,
        d.id,
        d.health,
        d.numaNodes.length > 0 ? d.numaNodes.join(',') : '-',
        d.pciAddress ?? '-',
        d.deviceSpecs.length > 0 ? d.deviceSpecs.map((s) => s.hostPath).join(',') : '-',
      ]);
    }
  }
  return [doc.resources.length > 0 ? formatColumns(rows) : 'no resources\n', ...discoverNotes(doc)].join(
    '\n',
  );
}

/** The excluded candidates with their reasons and the warnings, as table sections (none when empty). */
export function discoverNotes(doc: Pick<DiscoverDocument, 'excluded' | 'warnings'>): string[] {
  const sections: string[] = [];
  if (doc.excluded.length > 0) {
    sections.push(
      `EXCLUDED\n${formatColumns([['PATH', 'REASON'], ...doc.excluded.map((e) => [e.path, e.reason])])}`,
    );
  }
  if (doc.warnings.length > 0) sections.push(`WARNINGS\n${doc.warnings.map((w) => `- ${w}\n`).join('')}`);
  return sections;
}

/** Rows as left-aligned columns two spaces apart, the last column unpadded. */
export function formatColumns(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows
    .map(
      (row) =>
        row
          .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
          .join('  ')
          .trimEnd() + '\n',
    )
    .join('');
}
