import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { TextSink } from './run-io';

/** A log file that the JSON logs are appended to besides stderr (`--log-dir`). */
export interface LogFile {
  /** The file's path. */
  readonly path: string;
  /** A sink writing to both the file and `other`. */
  tee(other: TextSink): TextSink;
  /** Flushes and closes the file. */
  close(): Promise<void>;
}

/** Opens (creating the directory, mode 0750, and the file, mode 0640) `<dir>/<binary>.log` for appending. */
export async function openLogFile(dir: string, binary: string): Promise<LogFile> {
  await mkdir(dir, { recursive: true, mode: 0o750 });
  const path = join(dir, `${binary}.log`);
  const stream: WriteStream = createWriteStream(path, { flags: 'a', mode: 0o640 });
  await new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', reject);
  });
  // A write error later (disk full) must not end the process: stderr still has every line.
  stream.on('error', () => undefined);
  return {
    path,
    tee: (other) => ({
      write(text: string) {
        stream.write(text);
        return other.write(text);
      },
    }),
    close: () => new Promise<void>((resolve) => stream.end(() => resolve())),
  };
}
