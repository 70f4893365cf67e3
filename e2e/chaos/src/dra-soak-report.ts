import { DRA_SOAK_KINDS, type DraSoakResult } from './dra-soak';
import { duration, spread, table } from './soak-report';

/** The DRA soak's table: counts and times to recover per kind, then the invariants' counters. */
export function formatDraSoakReport(result: DraSoakResult): string {
  const all = DRA_SOAK_KINDS.flatMap((kind) => result.kinds[kind].recoverMs);
  const stopped =
    result.stoppedBy === 'count'
      ? ''
      : result.stoppedBy === 'time'
        ? ` — stopped by --max-minutes after ${result.cycles} of ${result.requestedCycles}`
        : ` — stopped after cycle ${result.cycles}: the node did not recover`;
  const lines = [
    `kdp-device-plugins DRA chaos soak: ${result.cycles} cycles, seed ${result.seed}, ${duration(result.wallMs)}${stopped}`,
    '',
    ...table([
      ['kind', 'cycles', 'recover p50', 'p99', 'max'],
      ...DRA_SOAK_KINDS.map((kind) => [
        kind,
        String(result.kinds[kind].count),
        ...spread(result.kinds[kind].recoverMs),
      ]),
      ['all', String(result.cycles), ...spread(all)],
    ]),
    '',
    ...table([
      [
        'claims lost (a pod not Running with its devices, or slices not back, within the bound)',
        String(result.lost.length),
      ],
      [
        'devices double-allocated (in two allocations, or prepared for two claims)',
        String(result.doubleAllocated.length),
      ],
      ['crashes (exits nobody asked for)', String(result.crashes.length)],
      ['pods created (each with a claim from a template)', String(result.podsCreated)],
      ['pods deleted', String(result.podsDeleted)],
      ['writes refused with 409 in conflict storms', String(result.conflictsInjected)],
      [
        'exit after the final SIGTERM',
        result.finalExit === undefined ? '-' : String(result.finalExit.code ?? result.finalExit.signal),
      ],
    ]),
  ];
  for (const v of [...result.lost, ...result.doubleAllocated])
    lines.push(`VIOLATION cycle ${v.cycle} (${v.kind}): ${v.what}`);
  for (const crash of result.crashes)
    lines.push(
      `CRASH cycle ${crash.cycle}: exit ${crash.code ?? crash.signal}\n  ${crash.tail.slice(-5).join('\n  ')}`,
    );
  return `${lines.join('\n')}\n`;
}
