import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { IF_ID, type FpgaFixture } from './create-fpga-fixture';

/** A fake `fpgaconf` written by a test: it logs each run and copies the bitstream's content into afu_id. */
export interface FakeProgrammer {
  /** Absolute path of the script. */
  readonly program: string;
  /** The bitstream directory and a bitstream whose content is `afuId`. */
  readonly bitstreamDir: string;
  readonly bitstream: string;
  /** The argument lines of every run so far. */
  runs(): string[];
}

/**
 * Writes the fake programmer. It takes `<afu_id file> <bitstream>`; its behaviour is chosen by the file
 * `<base>/fake-mode`: `ok` (default) rewrites afu_id, `fail` exits 3 with a message, `hang` sleeps,
 * `noop` exits 0 without changing anything.
 */
export function writeFakeProgrammer(fx: FpgaFixture, afuId: string): FakeProgrammer {
  const bitstreamDir = join(fx.base, 'bitstreams');
  mkdirSync(bitstreamDir, { recursive: true });
  const bitstream = join(bitstreamDir, `${afuId}.gbs`);
  writeFileSync(bitstream, `${afuId}\n`);
  const log = join(fx.base, 'fake-runs.log');
  const modeFile = join(fx.base, 'fake-mode');
  const program = join(fx.base, 'fake-fpgaconf');
  fx.writeScript(
    program,
    [
      '#!/bin/sh',
      `echo "$*" >> '${log}'`,
      `mode=$(cat '${modeFile}' 2>/dev/null || echo ok)`,
      'case "$mode" in',
      '  fail) echo "fpgaconf: bitstream is not compatible with this FPGA" >&2; exit 3 ;;',
      '  hang) echo "programming..."; exec sleep 60 ;;',
      '  noop) exit 0 ;;',
      'esac',
      'cat "$2" > "$1"',
      '',
    ].join('\n'),
  );
  return {
    program,
    bitstreamDir,
    bitstream,
    runs: () =>
      existsSync(log)
        ? readFileSync(log, 'utf8')
            .split('\n')
            .filter((l) => l !== '')
        : [],
  };
}

/** Chooses the fake programmer's behaviour for the next runs. */
export function setFakeMode(fx: FpgaFixture, mode: 'ok' | 'fail' | 'hang' | 'noop'): void {
  writeFileSync(join(fx.base, 'fake-mode'), mode);
}

/** A region-mode config whose one rule loads `afuId` into the port whose afu_id file is `afuFile`. */
export function programmingConfig(
  fake: FakeProgrammer,
  afuFile: string,
  afuId: string,
  extra: readonly string[] = [],
): string {
  return [
    'mode: region',
    ...extra,
    `bitstreamDir: ${fake.bitstreamDir}`,
    'programming:',
    `  - interfaceId: ${IF_ID}`,
    `    afuId: ${afuId}`,
    `    command: [${fake.program}, ${afuFile}, "{bitstream}"]`,
    `    bitstream: ${fake.bitstream}`,
    '',
  ].join('\n');
}
