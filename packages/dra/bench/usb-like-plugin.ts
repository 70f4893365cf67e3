// The driver of the DRA prepare bench (prepare-bench.ts): a plugin of 500 USB-like devices (one device node each,
// vendor/product/serial attributes), served through `serve --mode dra` in a process of its own
// (usb-like-plugin-main.ts) as a driver runs on a node. The bench cannot use @kdp/plugin-usb itself, which depends
// on this package.
import type { PluginDevice } from '@kdp/core';
import { definePlugin } from '@kdp/core/plugin';

/** The DRA driver name the bench's device class selects. */
export const USB_LIKE_DRIVER = 'usb.kdp.dev';
/** The plugin's one resource. */
export const USB_LIKE_RESOURCE = 'example.com/usb';
/** How many devices it serves. */
export const USB_LIKE_DEVICES = 500;

/** 500 USB-like devices, 32 per bus, each its own device node under /dev/bus/usb. */
export const usbLikePlugin = definePlugin({
  name: 'usb',
  binary: 'usb-bench-plugin',
  title: 'USB-like devices for the DRA prepare bench',
  version: '0.0.0',
  scan: { run: () => Array.from({ length: USB_LIKE_DEVICES }, (_, i) => i), interval: '1h' },
  resources: (indices: number[]) => ({
    resources: [
      {
        name: USB_LIKE_RESOURCE,
        devices: indices.map((i): PluginDevice<string> => {
          const bus = Math.floor(i / 32) + 1;
          const node = `/dev/bus/usb/${String(bus).padStart(3, '0')}/${String((i % 32) + 2).padStart(3, '0')}`;
          return {
            id: `A${100000 + i}`,
            health: 'Healthy',
            numaNodes: [bus % 2],
            attributes: {
              vendor: '0403',
              product: '6001',
              serial: `A${100000 + i}`,
              port: `${bus}-${(i % 32) + 1}`,
            },
            payload: node,
          };
        }),
        allocate: ({ devices }) => ({
          devices: devices.map((d) => ({
            containerPath: d.payload ?? '',
            hostPath: d.payload ?? '',
            permissions: 'rw',
          })),
        }),
      },
    ],
  }),
});
