// `nx run e2e-chaos:soak`: kdp-device-plugins (all five plugins) on the demo's sample node against kubelet-sim,
// through --cycles N (1000) seeded random disruptions; prints a table, exits 1 when a registration was lost, the
// process crashed, a change was missed or the final SIGTERM did not end it cleanly. With --dra: the same five as DRA
// drivers against the DRA playground; exits 1 when a claim was lost or double-allocated, or on a crash. See README.md.
import { randomInt } from 'node:crypto';
import { join } from 'node:path';
import { draSoakPassed, runDraSoak } from './dra-soak';
import { formatDraSoakReport } from './dra-soak-report';
import { runSoak, soakPassed } from './soak';
import { parseSoakArgs, SOAK_USAGE } from './soak-args';
import { formatSoakReport } from './soak-report';

/** This bundle is e2e/chaos/dist/soak.js; the plugin bundle is the device-plugins build's. */
const BUNDLE = join(__dirname, '..', '..', '..', 'packages', 'device-plugins', 'dist', 'main.js');

async function main(): Promise<number> {
  let args;
  try {
    args = parseSoakArgs(process.argv.slice(2), () => randomInt(2 ** 31));
  } catch (error) {
    process.stderr.write(`soak: ${error instanceof Error ? error.message : String(error)}\n\n${SOAK_USAGE}`);
    return 2;
  }
  process.stderr.write(
    `soak${args.dra ? ' --dra' : ''}: ${args.cycles} cycles, seed ${args.seed}, at most ${args.maxMinutes} min\n`,
  );
  const progress = (p: { cycle: number; elapsedMs: number; lost: number; crashes: number }): void => {
    if (p.cycle % 50 === 0)
      process.stderr.write(
        `soak: cycle ${p.cycle} (${Math.round(p.elapsedMs / 1000)} s): lost ${p.lost}, crashes ${p.crashes}\n`,
      );
  };
  const options = {
    bundle: BUNDLE,
    cycles: args.cycles,
    seed: args.seed,
    maxMs: args.maxMinutes * 60_000,
    onCycle: progress,
  };
  if (args.dra) {
    const dra = await runDraSoak(options);
    process.stdout.write(formatDraSoakReport(dra));
    return draSoakPassed(dra) ? 0 : 1;
  }
  const result = await runSoak(options);
  process.stdout.write(formatSoakReport(result));
  return soakPassed(result) ? 0 : 1;
}

void main().then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    process.stderr.write(
      `soak: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  },
);
