import { createCdiSpecWriter, type CdiDevice, type Logger } from '@kdp/core';
import type { ResourceSet } from '@kdp/core/plugin';
import type { GpuPayload } from '../resources/plan-resources';
import type { Gpu } from '../scan/gpu';

/** CDI vendor and class of the NVIDIA devices this plugin writes (the same kind NVIDIA's plugin uses). */
export const NVIDIA_CDI_VENDOR = 'k8s.device-plugin.nvidia.com';
/** CDI class of {@link NVIDIA_CDI_VENDOR}'s devices. */
export const NVIDIA_CDI_CLASS = 'gpu';
/** `vendor/class` of the CDI names Allocate returns. */
export const NVIDIA_CDI_KIND = `${NVIDIA_CDI_VENDOR}/${NVIDIA_CDI_CLASS}`;

/** The CDI device name of an NVIDIA GPU or MIG device ("/" is not allowed in CDI names, so MIG uses ":"). */
export function nvidiaCdiName(gpu: Gpu): string {
  return gpu.id.replaceAll('/', ':');
}

/** The CDI spec file of the advertised NVIDIA GPUs; see {@link createNvidiaCdi}. */
export interface NvidiaCdi {
  /** Writes the spec for the NVIDIA GPUs of an advertised resource set, when it differs from the last one. */
  update(set: ResourceSet): Promise<void>;
  /** Removes the spec file, if one was written. */
  remove(): Promise<void>;
}

/**
 * The CDI spec of every advertised NVIDIA GPU and MIG device (their own nodes per device, the control nodes
 * for all), in `dir` (`--cdi-dir`), named after {@link NVIDIA_CDI_KIND}.
 */
export function createNvidiaCdi(dir: string, logger: Logger): NvidiaCdi {
  const writer = createCdiSpecWriter({ dir, vendor: NVIDIA_CDI_VENDOR, class: NVIDIA_CDI_CLASS });
  let written: string | undefined;
  return {
    async update(set) {
      const gpus = new Map<string, Gpu>();
      for (const device of set.resources.flatMap((resource) => resource.devices)) {
        const gpu = (device.payload as GpuPayload | undefined)?.gpu;
        if (gpu?.kind.startsWith('nvidia')) gpus.set(gpu.id, gpu);
      }
      const devices: CdiDevice[] = [...gpus.values()].map((gpu) => ({
        name: nvidiaCdiName(gpu),
        containerEdits: { deviceNodes: gpu.deviceNodes.map((path) => ({ path })) },
      }));
      const shared = [...new Set([...gpus.values()].flatMap((gpu) => gpu.sharedNodes))];
      const key = JSON.stringify([devices, shared]);
      if (key === written) return;
      written = key;
      try {
        await writer.write(devices, { deviceNodes: shared.map((path) => ({ path })) });
        logger.info({ cdi: writer.path, devices: devices.length }, 'CDI spec written');
      } catch (error) {
        logger.error({ err: error }, 'CDI spec not written');
      }
    },
    async remove() {
      if (written === undefined) return;
      written = undefined;
      await writer.remove().catch((error: unknown) => logger.error({ err: error }, 'CDI spec not removed'));
    },
  };
}
