import { posix } from 'node:path';
import { z } from '@kdp/core';

/** The kubelet's PreStartContainer deadline is 30 s (P-29); a programming command must end well inside it. */
export const MAX_PROGRAMMING_TIMEOUT_MS = 25_000;

/** Placeholders a programming command's arguments may use, filled from sysfs for the device being prepared. */
export const COMMAND_PLACEHOLDERS = [
  'bitstream',
  'port',
  'fme',
  'pciAddress',
  'segment',
  'bus',
  'device',
  'function',
  'afuId',
  'interfaceId',
] as const;

const hex32 = z
  .string()
  .transform((s) => s.trim().toLowerCase().replace(/-/g, ''))
  .refine((s) => /^[0-9a-f]{32}$/.test(s), { message: 'expected 32 hex digits (dashes allowed)' });

const absolutePath = z
  .string()
  .refine((p) => posix.isAbsolute(p) && posix.normalize(p) === p && !p.includes('\0'), {
    message: 'expected an absolute, normalized path',
  });

const programmingRule = z.strictObject({
  /** Selects the region resource `fpga.intel.com/region-<interfaceId>`. */
  interfaceId: hex32,
  /** The AFU containers of this resource must run with. */
  afuId: hex32,
  /** The programming command as an argument array, run without a shell; the first entry is an absolute path. */
  command: z.array(z.string().min(1)).min(1),
  /** The bitstream to load; must lie inside `bitstreamDir`. */
  bitstream: absolutePath,
  timeoutMs: z.number().int().min(100).max(MAX_PROGRAMMING_TIMEOUT_MS).default(20_000),
});

/** One region's programming rule, as validated. */
export type ProgrammingRule = z.output<typeof programmingRule>;

/** The `--config` schema of fpga-device-plugin. */
export const fpgaConfigSchema = z
  .strictObject({
    /** `af`: one resource per loaded AFU; `region`: one per interface ID; `regiondevel`: region plus FME node. */
    mode: z.enum(['af', 'region', 'regiondevel']).default('af'),
    /** The only directory bitstreams may be loaded from. */
    bitstreamDir: absolutePath.default('/srv/intel.com/fpga'),
    amd: z
      .strictObject({
        /** Also hand out the management function's `/dev/xclmgmt<N>` (Xilinx's plugin always does). */
        includeManagement: z.boolean().default(false),
      })
      .default({ includeManagement: false }),
    programming: z.array(programmingRule).default([]),
    /**
     * Set when started as intel-fpga-plugin (its compat layer): Intel's region device IDs (the FME, `dfl-fme.0`),
     * the `com.intel.fpga.mode` annotation its CRI hook reads in region mode, and no `KDP_FPGA_*` variables.
     */
    anchor: z.literal('intel-fpga-plugin').optional(),
  })
  .superRefine((config, ctx) => {
    const issue = (path: (string | number)[], message: string): void =>
      ctx.addIssue({ code: 'custom', path, message });
    const seen = new Set<string>();
    const dir = config.bitstreamDir.endsWith('/') ? config.bitstreamDir : `${config.bitstreamDir}/`;
    config.programming.forEach((rule, i) => {
      if (seen.has(rule.interfaceId))
        issue(['programming', i, 'interfaceId'], 'a second rule for the same interface id');
      seen.add(rule.interfaceId);
      // Refinements run after non-fatal issues too: an empty command is reported by its min(1), not here.
      const program = rule.command[0];
      if (program !== undefined && (!posix.isAbsolute(program) || posix.normalize(program) !== program))
        issue(['programming', i, 'command', 0], 'the program must be an absolute, normalized path');
      rule.command.forEach((arg, j) => {
        for (const [, name] of arg.matchAll(/\{([^{}]*)\}/g)) {
          if (!(COMMAND_PLACEHOLDERS as readonly string[]).includes(name as string)) {
            const known = COMMAND_PLACEHOLDERS.map((p) => `{${p}}`).join(' ');
            issue(
              ['programming', i, 'command', j],
              `unknown placeholder {${name as string}}; known: ${known}`,
            );
          }
        }
      });
      if (!rule.bitstream.startsWith(dir))
        issue(['programming', i, 'bitstream'], `must lie inside bitstreamDir ${config.bitstreamDir}`);
    });
    if (config.programming.length > 0 && config.mode === 'af')
      issue(['mode'], 'programming rules need mode region or regiondevel');
  });

/** The validated configuration. */
export type FpgaConfig = z.output<typeof fpgaConfigSchema>;
