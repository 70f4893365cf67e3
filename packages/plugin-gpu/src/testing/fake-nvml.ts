import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
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
  /** The first of the GPU's 8 memory slices its GPU instance covers (its placement start; default 0). */
  readonly start?: number;
}

/** A GPU instance of a {@link FakeNvmlGpu} (one without compute instances has no MIG device). */
export interface FakeNvmlGpuInstance {
  readonly id: number;
  /** Its NVML_GPU_INSTANCE_PROFILE_* index. */
  readonly profile: number;
  /** Its placement's first memory slice. */
  readonly start: number;
}

/** The GPU models whose MIG profiles and placements the fake library knows. */
export type FakeNvmlChip = 'a100-40gb' | 'h100-80gb';

/** One GPU of the fake library; `undefined` in `migs` leaves that MIG device index empty. */
export interface FakeNvmlGpu {
  readonly uuid: string;
  readonly memoryMiB: number;
  readonly migMode: boolean;
  /** Whose MIG profiles it has (default `h100-80gb`). */
  readonly chip?: FakeNvmlChip;
  /** GPU instances beyond those of `migs` (the library declares a MIG device's own GPU instance). */
  readonly gpuInstances?: readonly FakeNvmlGpuInstance[];
  readonly migs?: readonly (FakeNvmlMig | undefined)[];
}

/** The layout file the fake library reads (see test/fake-nvml.c). */
export function fakeNvmlLayout(gpus: readonly FakeNvmlGpu[]): string {
  const lines = gpus.flatMap((gpu) => [
    `gpu ${gpu.uuid} ${gpu.memoryMiB} ${gpu.migMode ? 1 : 0} ${gpu.chip ?? 'h100-80gb'}`,
    ...(gpu.gpuInstances ?? []).map((gi) => `gi ${gi.id} ${gi.profile} ${gi.start}`),
    ...(gpu.migs ?? []).map((m) =>
      m === undefined
        ? 'hole'
        : `mig ${m.uuid} ${m.gpuInstanceId} ${m.computeInstanceId} ${m.giProfile} ${m.giSlices} ${m.ciSlices} ${m.memorySizeMB} ${m.start ?? 0}`,
    ),
  ]);
  return `${lines.join('\n')}\n`;
}

/** The GPUs of a layout file as {@link fakeNvmlLayout} writes it and the library writes it back. */
export function parseFakeNvmlLayout(text: string): FakeNvmlGpu[] {
  const gpus: { gpu: FakeNvmlGpu; gis: FakeNvmlGpuInstance[]; migs: (FakeNvmlMig | undefined)[] }[] = [];
  for (const line of text.split('\n')) {
    const [kind, ...f] = line.trim().split(/\s+/);
    const n = (i: number): number => Number(f[i]);
    const current = gpus[gpus.length - 1];
    if (kind === 'gpu')
      gpus.push({
        gpu: { uuid: f[0] ?? '', memoryMiB: n(1), migMode: f[2] === '1', chip: f[3] as FakeNvmlChip },
        gis: [],
        migs: [],
      });
    else if (kind === 'gi') current?.gis.push({ id: n(0), profile: n(1), start: n(2) });
    else if (kind === 'hole') current?.migs.push(undefined);
    else if (kind === 'mig')
      current?.migs.push({
        uuid: f[0] ?? '',
        gpuInstanceId: n(1),
        computeInstanceId: n(2),
        giProfile: n(3),
        giSlices: n(4),
        ciSlices: n(5),
        memorySizeMB: n(6),
        start: n(7),
      });
  }
  return gpus.map(({ gpu, gis, migs }) => ({ ...gpu, gpuInstances: gis, migs }));
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
  /** The layout file as it is now: what the library created and destroyed included. */
  readGpus(): FakeNvmlGpu[];
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
  return { library, setGpus, readGpus: () => parseFakeNvmlLayout(readFileSync(layout, 'utf8')) };
}
