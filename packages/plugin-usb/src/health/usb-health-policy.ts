/**
 * How USB devices are remembered across scans: an allocated device that is unplugged stays advertised Unhealthy
 * until the same ID (serial or port) returns; one never handed to a container simply goes.
 */
export const usbHealthPolicy = { keepVanished: 'allocated', vanishedGraceMs: Infinity } as const;
