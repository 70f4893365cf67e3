import type { ExcludedDevice } from '@kdp/core';
import type { FpgaIdRead } from './fpga-id';

/** Which Intel driver stack exposes a port. */
export type IntelLayout = 'dfl' | 'opae';

/** PCI facts of the function an FPGA device sits on. */
export interface FpgaPciInfo {
  readonly address: string;
  readonly vendor?: string;
  readonly device?: string;
  /** The PF's address when this function is an SR-IOV VF. */
  readonly physfn?: string;
  readonly numaNodes: readonly number[];
  readonly pciePath: readonly string[];
}

/** One Intel accelerator port (`dfl-port.N` / `intel-fpga-port.N`) as read from sysfs. */
export interface IntelPort {
  readonly layout: IntelLayout;
  /** `dfl-port.0`, `intel-fpga-port.1`. */
  readonly name: string;
  /** The container holding the port: `region0` (DFL) or `intel-fpga-dev.0` (OPAE). */
  readonly container: string;
  /** Root-relative sysfs directory of the port. */
  readonly sysfsPath: string;
  /** Host path of the port's character device. */
  readonly devNode: string;
  /** The FME that carries the region's interface ID (the PF's FME for a VF), when found. */
  readonly fme?: { readonly name: string; readonly devNode: string };
  readonly afuId: FpgaIdRead;
  readonly interfaceId: FpgaIdRead;
  /** Where the interface ID was read, for messages. */
  readonly interfaceIdPath: string;
  /** Why the port is unhealthy; empty when healthy. */
  readonly problems: readonly string[];
  readonly pci?: FpgaPciInfo;
}

/** One AMD/Xilinx user function (xocl), paired with its management function (xclmgmt) when present. */
export interface AmdCard {
  /** BDF of the user function, the device ID (as Xilinx's plugin). */
  readonly address: string;
  readonly sysfsPath: string;
  /** Shell name, e.g. `xilinx_u200_xdma_201830_1`. */
  readonly vbnv: string;
  readonly timestamp: string;
  /** `/dev/dri/renderD128`, when the user function has a DRM render node. */
  readonly renderNode?: string;
  /** `/dev/xclmgmt15104`, when the management function is present. */
  readonly mgmtNode?: string;
  readonly mgmtAddress?: string;
  readonly problems: readonly string[];
  readonly pci: FpgaPciInfo;
}

/** Everything one scan found: Intel ports, AMD cards, candidates left out and why, and warnings. */
export interface FpgaScan {
  readonly intel: readonly IntelPort[];
  readonly amd: readonly AmdCard[];
  readonly excluded: readonly ExcludedDevice[];
  readonly warnings: readonly string[];
}
