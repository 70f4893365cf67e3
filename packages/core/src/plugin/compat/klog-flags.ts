import { resolve } from 'node:path';
import type { LogLevel } from '@kdp/base';
import { compat } from './compat-builders';
import { parseGoInt, type CompatOption, type CompatTarget } from './compat-layer';

/** klog/glog verbosity (`-v`) as one of our levels: 0–3 info, 4–5 debug, 6 and above trace. */
export function klogVerbosityLevel(verbosity: number): LogLevel {
  if (verbosity >= 6) return 'trace';
  if (verbosity >= 4) return 'debug';
  return 'info';
}

/** klog's severity names (`-stderrthreshold`) as our levels. */
const SEVERITIES: Readonly<Record<string, LogLevel>> = {
  INFO: 'info',
  WARNING: 'warn',
  ERROR: 'error',
  FATAL: 'error',
  '0': 'info',
  '1': 'warn',
  '2': 'error',
  '3': 'error',
};

const verbosity = (value: string, to: CompatTarget): void => {
  const v = parseGoInt(value);
  if (v < 0) throw new Error(`${value} is not a verbosity (0 or more)`);
  to.flag('log-level', klogVerbosityLevel(v));
};

const logDir = (value: string, to: CompatTarget): void => {
  if (value.trim() === '') throw new Error('must name a directory');
  // glog takes a directory relative to the working directory too.
  to.flag('log-dir', resolve(value));
};

const stderrOnly = 'JSON logs always go to stderr (kubectl logs); use -log_dir to also write them to a file';
const NO_HEADER = 'kdp logs are JSON; they carry no klog header';

/**
 * The logging flags of klog and glog that Go device plugins inherit (`-v`, `-logtostderr`, `-log_dir`, …), with
 * their meaning here: verbosity becomes `--log-level`, a log directory `--log-dir`; what has no equivalent in JSON
 * logging (per-file verbosity, header formats, rotation) is refused with the reason. Spread into a layer's flags.
 */
export const klogFlags: Readonly<Record<string, CompatOption>> = {
  v: compat.accept('value', 'klog verbosity: 0–3 info, 4–5 debug, 6+ trace (--log-level)', verbosity),
  logtostderr: compat.accept('boolean', `accepted either way: ${stderrOnly}`, () => undefined),
  alsologtostderr: compat.accept(
    'boolean',
    'logs go to stderr as well as -log_dir (always)',
    () => undefined,
  ),
  stderrthreshold: compat.accept(
    'value',
    'the lowest severity logged (INFO, WARNING, ERROR) becomes --log-level',
    (value, to) => {
      const level = SEVERITIES[value.trim().toUpperCase()];
      if (level === undefined)
        throw new Error(`${JSON.stringify(value)} is not INFO, WARNING, ERROR or FATAL`);
      to.flag('log-level', level);
    },
  ),
  log_dir: compat.accept('value', 'also append the JSON logs to <dir>/<binary>.log (--log-dir)', logDir),
  log_file: compat.refuse(
    'value',
    'kdp names its log file itself: use -log_dir DIR (logs are appended to DIR/<binary>.log)',
  ),
  log_file_max_size: compat.refuse('value', 'kdp does not rotate log files; rotate them outside (logrotate)'),
  log_backtrace_at: compat.refuse('value', 'kdp logs are JSON without stack traces per line'),
  vmodule: compat.refuse('value', 'kdp has one log level per process (--log-level), not one per source file'),
  add_dir_header: compat.refuse('boolean', NO_HEADER),
  skip_headers: compat.refuse('boolean', NO_HEADER),
  skip_log_headers: compat.refuse('boolean', NO_HEADER),
  one_output: compat.refuse('boolean', 'kdp writes each line once, to stderr (and -log_dir)'),
};
