import { compat, type CompatLayer, type CompatOption } from '@kdp/core/plugin';

/** Go's strings.EqualFold(value, want). */
const sameFold = (value: string, want: string): boolean => value.toLowerCase() === want.toLowerCase();

/** A variable that Xilinx's plugin switches on with one word (case-insensitive); any other value is its default. */
const refusedWhen = (word: string, defaultMeaning: string, refusal: string): CompatOption =>
  compat.accept('value', `${defaultMeaning}; ${word} is refused`, (value) => {
    if (sameFold(value.trim(), word))
      throw new Error(`${JSON.stringify(value)} is not supported: ${refusal}`);
  });

/** A variable accepted only as `word` (case-insensitive), what kdp does; any other value is refused. */
const onlyWord = (word: string, meaning: string, refusal: string): CompatOption =>
  compat.accept('value', `${word} only (${meaning})`, (value) => {
    if (!sameFold(value.trim(), word))
      throw new Error(`${JSON.stringify(value)} is not supported: ${refusal}`);
  });

const EACH_FUNCTION =
  'kdp advertises each Alveo user function once, as amd.com/<shell>-<timestamp>, its PCI address the device ID';

/**
 * Xilinx/FPGA_as_a_Service k8s-device-plugin 2023.2 (also what Xilinx/fpga-operator deploys): its one flag,
 * `-log-level error|info|debug` (our `--log-level`), and its environment variables. Its defaults are what kdp
 * does for Alveo cards except for U30/VT1 media cards, which it names `amd.com/ama_u30` and bundles per card:
 * `U30NameConvention=ExactName` and `U30AllocUnit=Device` are ours; virtual devices (`VirtualDev=True`) and
 * `NameCustomize.json` (`DeviceNameCustomize=True`) are refused.
 */
export const xilinxFpgaCompat: CompatLayer = {
  anchor: 'Xilinx/FPGA_as_a_Service k8s-device-plugin 2023.2',
  flags: {
    'log-level': compat.accept('value', 'error, info or debug (--log-level)', (value, to) => {
      if (value !== 'error' && value !== 'info' && value !== 'debug')
        throw new Error(`${JSON.stringify(value)} is not one of error, info, debug`);
      to.flag('log-level', value);
    }),
  },
  env: {
    VirtualDev: refusedWhen(
      'True',
      'False (its default): each card is advertised once',
      `${EACH_FUNCTION}; it does not advertise a card VirtualNum times`,
    ),
    VirtualNum: compat.accept('value', 'used only with VirtualDev=True (refused)', () => undefined),
    U30NameConvention: onlyWord(
      'ExactName',
      'U30 cards named by their shell, as every Alveo card',
      `${EACH_FUNCTION} (ExactName), U30 cards included; there is no amd.com/ama_u30`,
    ),
    U30AllocUnit: onlyWord(
      'Device',
      'each U30 device is its own device',
      `${EACH_FUNCTION} (Device); the two devices of a U30 card are not bundled`,
    ),
    DeviceNameCustomize: refusedWhen(
      'True',
      'False (its default): names from the shell',
      `${EACH_FUNCTION}; /opt/xilinx/device-plugin-configmap/NameCustomize.json is not read`,
    ),
  },
};
