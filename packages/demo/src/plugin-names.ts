/** The five kdp plugins the demo runs, by the short name of their package (`packages/plugin-<name>`). */
export const PLUGIN_NAMES = ['gpu', 'sriov', 'infiniband', 'usb', 'fpga'] as const;

/** One of the five plugins. */
export type PluginName = (typeof PLUGIN_NAMES)[number];
