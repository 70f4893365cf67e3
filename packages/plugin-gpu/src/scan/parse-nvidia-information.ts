/** The fields of `/proc/driver/nvidia/gpus/<bdf>/information` that the plugin uses. */
export interface NvidiaInformation {
  /** `Model:`, e.g. "NVIDIA H100 80GB HBM3". */
  readonly model?: string;
  /** `GPU UUID:`, e.g. "GPU-3f1c…"; present only when well formed. */
  readonly uuid?: string;
  /** `Bus Location:` as written (8-digit domain, e.g. "00000000:3b:00.0"). */
  readonly busLocation?: string;
  /** `Device Minor:` (N of /dev/nvidiaN, 0–254). */
  readonly minor?: number;
}

const UUID = /^GPU-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** Parses the NVIDIA driver's per-GPU information file; unknown lines are ignored, bad values left out. */
export function parseNvidiaInformation(text: string): NvidiaInformation {
  const out: { model?: string; uuid?: string; busLocation?: string; minor?: number } = {};
  for (const line of text.split('\n')) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const key = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (value === '') continue;
    switch (key) {
      case 'Model':
        out.model = value.slice(0, 200);
        break;
      case 'GPU UUID':
        if (UUID.test(value)) out.uuid = value;
        break;
      case 'Bus Location':
        out.busLocation = value.slice(0, 40);
        break;
      case 'Device Minor':
        if (/^\d{1,3}$/.test(value) && Number(value) <= 254) out.minor = Number(value);
        break;
      default:
        break;
    }
  }
  return out;
}
