import { basename } from 'node:path';
import type { RunIo } from './run-io';

/**
 * The {@link RunIo} of a binary invoked by one of `anchors` (an established plugin's binary name, linked to the
 * entry in the image): started as that anchor (`invokedAs`), and with no arguments `serve`, as the anchor serves
 * when its manifest gives only a command (NVIDIA's chart: `command: ["nvidia-device-plugin"]`, settings in env).
 * Any other invocation: `{}`.
 */
export function anchorInvocation(anchors: readonly string[], argv: readonly string[] = process.argv): RunIo {
  const invokedAs = basename(argv[1] ?? '');
  if (!anchors.includes(invokedAs)) return {};
  return argv.length === 2 ? { argv: ['serve'], invokedAs } : { invokedAs };
}
