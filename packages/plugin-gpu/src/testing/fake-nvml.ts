import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** One MIG device of a {@link FakeNvmlGpu}: what NVML reports for it. */
export interface FakeNvmlMig {
  readonly uuid: string;
  readonly gpuInstanceId: number;
  readonly computeInstanceId: number;
  /** The GPU instance's NVML_GPU_INSTANCE_PROFILE_* index (7 and 8: `+me`, 15 and 16: `+me.all`). */
  readonly giProfile: number;
  readonly giSlices: number;
  readonly ciSlices: number;
  readonly memorySizeMB: number;
}

/** One GPU of the fake library; `undefined` in `migs` leaves that MIG device index empty. */
export interface FakeNvmlGpu {
  readonly uuid: string;
  readonly memoryMiB: number;
  readonly migMode: boolean;
  readonly migs?: readonly (FakeNvmlMig | undefined)[];
}

/** The layout file the fake library reads (see test/fake-nvml.c). */
export function fakeNvmlLayout(gpus: readonly FakeNvmlGpu[]): string {
  const lines = gpus.flatMap((gpu) => [
    `gpu ${gpu.uuid} ${gpu.memoryMiB} ${gpu.migMode ? 1 : 0}`,
    ...(gpu.migs ?? []).map((m) =>
      m === undefined
        ? 'hole'
        : `mig ${m.uuid} ${m.gpuInstanceId} ${m.computeInstanceId} ${m.giProfile} ${m.giSlices} ${m.ciSlices} ${m.memorySizeMB}`,
    ),
  ]);
  return `${lines.join('\n')}\n`;
}

/** Options of {@link buildFakeNvml}. */
export interface FakeNvmlOptions {
  /** A file whose appearance makes the library report a critical Xid (79) on its second GPU. */
  readonly trigger?: string;
  /** The GPUs and MIG devices: written to `<dir>/nvml-layout`, which the library reads again on every lookup. */
  readonly gpus?: readonly FakeNvmlGpu[];
}

/** The fake library built by {@link buildFakeNvml}: its path, and how to re-partition it. */
export interface FakeNvml {
  readonly library: string;
  /** Rewrites the layout file (the library sees it at its next handle lookup). */
  setGpus(gpus: readonly FakeNvmlGpu[]): void;
}

/** Compiles test/fake-nvml.c with gcc into `<dir>/libnvidia-ml.so.1`. */
export function buildFakeNvml(dir: string, options: FakeNvmlOptions = {}): FakeNvml {
  const library = join(dir, 'libnvidia-ml.so.1');
  const layout = join(dir, 'nvml-layout');
  const setGpus = (gpus: readonly FakeNvmlGpu[]): void => writeFileSync(layout, fakeNvmlLayout(gpus));
  if (options.gpus !== undefined) setGpus(options.gpus);
  execFileSync('gcc', [
    '-shared',
    '-fPIC',
    '-Wall',
    '-Werror',
    ...(options.trigger !== undefined ? [`-DTRIGGER=${JSON.stringify(options.trigger)}`] : []),
    ...(options.gpus !== undefined ? [`-DLAYOUT=${JSON.stringify(layout)}`] : []),
    '-o',
    library,
    join(__dirname, '../../test/fake-nvml.c'),
  ]);
  return { library, setGpus };
}
