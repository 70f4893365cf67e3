import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { bundleEntry } from '@kdp/kubelet-sim/testing';

/** A fixture node for one plugin: what to mount into its container and how to start it. */
export interface NodeFixture {
  /** Host directories bind-mounted read-only at the same path in the container (the fixture tree). */
  readonly readOnly: readonly string[];
  /** Host directories bind-mounted read-write at the same path (e.g. the SR-IOV devinfo dir). */
  readonly writable: readonly string[];
  /** `serve` flags beyond `--device-plugin-dir`: the fixture's roots and configuration. */
  readonly args: readonly string[];
  /** The resource the conformance suite checks. */
  readonly resource: string;
  /** Deletes the fixture tree. */
  remove(): void;
}

/** Builds the fixture node of one plugin by name (`gpu`, `sriov`, `infiniband`, `usb`, `fpga`). */
export type NodeFixtureBuilder = (plugin: string) => NodeFixture;

const repo = resolve(__dirname, '../../..');
const src = (path: string): string => JSON.stringify(join(repo, 'packages', path));

// The plugins' own fixture builders (the trees their conformance specs run on), reached through a generated
// entry bundled with esbuild: their modules are test helpers inside each plugin, not exported by the package.
const entrySource = `
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createSysfsFixture } from ${src('topology/src/testing')};
import { buildNvidiaMachine } from ${src('plugin-gpu/src/testing/gpu-machines')};
import { addTwoPfNode, UPSTREAM_CONFIG } from ${src('plugin-sriov/src/sriov-node.fixture')};
import { createRdmaMachine } from ${src('plugin-infiniband/src/rdma-machine.fixture')};
import { createUsbFixture } from ${src('plugin-usb/src/testing/usb-fixture')};
import { addSampleMachine } from ${src('plugin-usb/src/testing/sample-machine')};
import { createFpgaFixture, IF_ID, NLB0 } from ${src('plugin-fpga/src/fpga-sysfs.fixture')};

const roots = (f) => ['--sysfs-root', f.root, '--proc-root', f.procRoot, '--dev-root', f.devRoot];

export function buildNodeFixture(plugin) {
  switch (plugin) {
    case 'gpu': {
      const f = buildNvidiaMachine();
      return { readOnly: [f.base], writable: [], args: roots(f), resource: 'nvidia.com/gpu', remove: () => f.remove() };
    }
    case 'sriov': {
      const f = createSysfsFixture();
      addTwoPfNode(f);
      writeFileSync(join(f.base, 'config.json'), UPSTREAM_CONFIG);
      const devinfo = join(f.base, 'devinfo');
      mkdirSync(devinfo);
      const args = [...roots(f), '--config', join(f.base, 'config.json'), '--devinfo-dir', devinfo];
      return { readOnly: [f.base], writable: [devinfo], args, resource: 'intel.com/intel_sriov_dpdk', remove: () => f.remove() };
    }
    case 'infiniband': {
      const f = createRdmaMachine();
      return { readOnly: [f.base], writable: [], args: roots(f), resource: 'rdma/hca', remove: () => f.remove() };
    }
    case 'usb': {
      const usb = createUsbFixture();
      addSampleMachine(usb);
      const config = join(usb.sys.base, 'usb.yaml');
      writeFileSync(config, 'resources:\\n  - name: example.com/serial\\n    match: [{ class: ff }]\\n    count: 2\\n');
      const args = [...roots(usb.sys), '--config', config];
      return { readOnly: [usb.sys.base], writable: [], args, resource: 'example.com/serial', remove: () => usb.remove() };
    }
    case 'fpga': {
      const f = createFpgaFixture();
      f.addDflCard({ address: '0000:81:00.0', index: 0, numaNode: 1, interfaceId: IF_ID, afuId: NLB0 });
      f.addDflCard({ address: '0000:82:00.0', index: 1, numaNode: 0, interfaceId: IF_ID, afuId: NLB0 });
      const config = join(f.base, 'fpga.yaml');
      writeFileSync(config, 'mode: af\\n');
      const resource = 'fpga.intel.com/af-695.d84.aVKNtusxV3qMNmj5-qCB9thCTcSko8QT-J5DNoP5BAs';
      return { readOnly: [f.base], writable: [], args: [...roots(f), '--config', config], resource, remove: () => f.remove() };
    }
    default:
      throw new Error('no fixture node for plugin ' + plugin);
  }
}
`;

/** Bundles the plugins' fixture builders once and returns the builder plus a cleanup. */
export function loadNodeFixtures(): { build: NodeFixtureBuilder; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'kdp-e2ef-'));
  mkdirSync(dir, { recursive: true });
  const entry = join(dir, 'entry.ts');
  writeFileSync(entry, entrySource);
  const bundle = bundleEntry(entry, { outfile: join(dir, 'fixtures.js') });
  const loaded = createRequire(__filename)(bundle.path) as { buildNodeFixture: NodeFixtureBuilder };
  return { build: loaded.buildNodeFixture, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
