/** The demo's command line. */
export interface DemoArgs {
  /** Run the steps once, then clean up and exit (for CI); otherwise keep running until Ctrl-C. */
  readonly once: boolean;
  /** Run the five plugins in one `kdp-device-plugins serve` process instead of one process each. */
  readonly allInOne: boolean;
  readonly help: boolean;
}

/** The usage text. */
export const DEMO_USAGE = `Usage: kdp-demo [--once] [--all-in-one]

Builds a sample node (two NUMA nodes, NVIDIA and AMD GPUs, an SR-IOV NIC, InfiniBand HCAs, an FPGA, USB
devices) in a temp dir, starts kubelet-sim and the five kdp device plugins on it, shows the devices the kubelet
sees, admits a sample pod per resource, fails and recovers a GPU, serves the USB devices through Dynamic
Resource Allocation as well (ResourceSlices, a prepared ResourceClaim), and restarts the kubelet.

  --once         exit after the last step (exit code 0 when every step passed)
  --all-in-one   run the five plugins in one process (kdp-device-plugins serve) instead of five
  --help         this text
`;

/** Parses the demo's arguments; throws on anything unknown. */
export function parseDemoArgs(argv: readonly string[]): DemoArgs {
  let once = false;
  let allInOne = false;
  let help = false;
  for (const arg of argv) {
    if (arg === '--once') once = true;
    else if (arg === '--all-in-one') allInOne = true;
    else if (arg === '--help' || arg === '-h') help = true;
    else throw new Error(`unknown argument "${arg}"`);
  }
  return { once, allInOne, help };
}
