import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { createFixturePciBus, type PciDeviceSpec } from './fixture-pci-bus';
import { createTempDir } from './temp-dir';

/** One NUMA node of a fixture machine. */
export interface NumaNodeSpec {
  readonly id: number;
  /** cpulist ("0-15"); "" for a memory-only node. */
  readonly cpus: string;
  /** The node's `distance` line, one entry per online node; omitted = no distance file. */
  readonly distances?: readonly number[];
  /** MemTotal in KiB for `meminfo`; default 16 GiB. */
  readonly memTotalKiB?: number;
}

/** A class device (/sys/class/<class>/<name>), placed under a PCI function when `pciAddress` is given. */
export interface ClassDeviceSpec {
  readonly pciAddress?: string;
  /** Directory under the PCI function that holds the class directory, e.g. "net" (default the class name). */
  readonly subdir?: string;
  /** Content of `dev` ("major:minor"), for char devices. */
  readonly dev?: string;
  readonly attributes?: Readonly<Record<string, string>>;
}

/** A realistic sysfs tree (real directories and relative symlinks) under a temp dir, for tests. */
export interface SysfsFixture {
  /** Temp dir holding sys/, proc/ and dev/. */
  readonly base: string;
  /** The sysfs root to pass as `--sysfs-root` / `createSysfs({ root })`. */
  readonly root: string;
  readonly procRoot: string;
  readonly devRoot: string;
  /** Writes a file (parents created) relative to the sysfs root, atomically as sysfs attributes read. */
  write(path: string, content: string): void;
  /** Creates a symlink at `path` (relative to the sysfs root) pointing at `target` verbatim. */
  link(path: string, target: string): void;
  /** Creates a symlink at `path` pointing, by a relative target as the kernel does, at `to` (both root-relative). */
  linkTo(path: string, to: string): void;
  /** Creates a directory (and parents) relative to the sysfs root. */
  mkdir(path: string): void;
  /** Adds devices/system/node/node<id>/{cpulist,distance,meminfo} and updates online/possible/has_cpu. */
  addNumaNode(spec: NumaNodeSpec): void;
  /** Overrides devices/system/node/{online,possible}. */
  setNodeStates(states: { readonly online?: string; readonly possible?: string }): void;
  /** Adds a PCI function with its attributes and links; returns its root-relative directory. */
  addPciDevice(spec: PciDeviceSpec): string;
  /** Root-relative directory of a PCI function added before. */
  pciDir(address: string): string;
  /** Adds class/<class>/<name> as a link to the device directory; returns that directory. */
  addClassDevice(className: string, name: string, spec?: ClassDeviceSpec): string;
  /** Writes a file relative to the proc root. */
  writeProc(path: string, content: string): void;
  /**
   * Adds a device node for the host path `/dev/...` under the dev root: a regular file holding
   * `c MAJOR:MINOR`, which is how kdp-replay captures stand for a node and what `Devfs.node` accepts.
   */
  addDevNode(hostPath: string, major: number, minor: number): void;
  /** Adds a symbolic link at the host path `/dev/...` pointing at `target` verbatim (e.g. `../card1`). */
  addDevLink(hostPath: string, target: string): void;
  /** Removes a device node or link (the device "falls off"); nothing happens when it is already gone. */
  removeDevNode(hostPath: string): void;
  /** Deletes the whole temp dir. */
  remove(): void;
}

/** Creates an empty fixture machine under os.tmpdir() (short name, safe for unix sockets beside it). */
export function createSysfsFixture(): SysfsFixture {
  const temp = createTempDir('kdp-sys-');
  const base = temp.path;
  const root = join(base, 'sys');
  const procRoot = join(base, 'proc');
  const devRoot = join(base, 'dev');
  for (const dir of [root, procRoot, devRoot]) mkdirSync(dir, { recursive: true });
  const nodes = new Map<number, NumaNodeSpec>();

  const abs = (path: string): string => join(root, path);
  const devPath = (hostPath: string): string => {
    const relative = posix.normalize(hostPath).replace(/^\/dev\//, '');
    if (!hostPath.startsWith('/dev/') || relative.startsWith('..'))
      throw new Error(`${hostPath} is not under /dev`);
    return join(devRoot, relative);
  };
  let writes = 0;
  // A sysfs attribute is read whole, old or new, never half-written: the content goes into a file outside the
  // tree first and is renamed over the attribute, so a plugin scanning meanwhile never reads it empty.
  const write = (path: string, content: string): void => {
    mkdirSync(posix.dirname(abs(path)), { recursive: true });
    const staged = join(base, `.write-${++writes}`);
    writeFileSync(staged, content);
    renameSync(staged, abs(path));
  };
  const link = (path: string, target: string): void => {
    mkdirSync(posix.dirname(abs(path)), { recursive: true });
    symlinkSync(target, abs(path));
  };
  const linkTo = (path: string, to: string): void => link(path, posix.relative(posix.dirname(path), to));
  const pci = createFixturePciBus({ write, linkTo }, (node) => nodes.get(node)?.cpus);
  const nodeDir = 'devices/system/node';
  const writeNodeStates = (): void => {
    const ids = [...nodes.keys()].sort((a, b) => a - b).join(',');
    const withCpus = [...nodes.values()].filter((n) => n.cpus !== '').map((n) => n.id);
    write(`${nodeDir}/online`, `${ids}\n`);
    write(`${nodeDir}/possible`, `${ids}\n`);
    write(`${nodeDir}/has_cpu`, `${withCpus.sort((a, b) => a - b).join(',')}\n`);
    write(`${nodeDir}/has_memory`, `${ids}\n`);
  };

  const fixture: SysfsFixture = {
    base,
    root,
    procRoot,
    devRoot,
    write,
    link,
    linkTo,
    mkdir: (path) => mkdirSync(abs(path), { recursive: true }),
    addNumaNode: (spec) => {
      nodes.set(spec.id, spec);
      const dir = `${nodeDir}/node${spec.id}`;
      write(`${dir}/cpulist`, `${spec.cpus}\n`);
      if (spec.distances) write(`${dir}/distance`, `${spec.distances.join(' ')}\n`);
      const kib = spec.memTotalKiB ?? 16 * 1024 * 1024;
      write(
        `${dir}/meminfo`,
        `Node ${spec.id} MemTotal:       ${kib} kB\nNode ${spec.id} MemFree:        ${kib >> 1} kB\n`,
      );
      writeNodeStates();
    },
    setNodeStates: (states) => {
      if (states.online !== undefined) write(`${nodeDir}/online`, `${states.online}\n`);
      if (states.possible !== undefined) write(`${nodeDir}/possible`, `${states.possible}\n`);
    },
    addPciDevice: (spec) => pci.add(spec),
    pciDir: (address) => pci.dir(address),
    addClassDevice: (className, name, spec = {}) => {
      const parent =
        spec.pciAddress === undefined
          ? `devices/virtual/${className}`
          : `${fixture.pciDir(spec.pciAddress)}/${spec.subdir ?? className}`;
      const dir = `${parent}/${name}`;
      fixture.mkdir(dir);
      if (spec.dev !== undefined) write(`${dir}/dev`, `${spec.dev}\n`);
      for (const [file, content] of Object.entries(spec.attributes ?? {}))
        write(`${dir}/${file}`, `${content}\n`);
      if (spec.pciAddress !== undefined) linkTo(`${dir}/device`, fixture.pciDir(spec.pciAddress));
      linkTo(`class/${className}/${name}`, dir);
      return dir;
    },
    writeProc: (path, content) => {
      const target = join(procRoot, path);
      mkdirSync(posix.dirname(target), { recursive: true });
      writeFileSync(target, content);
    },
    addDevNode: (hostPath, major, minor) => {
      const path = devPath(hostPath);
      mkdirSync(posix.dirname(path), { recursive: true });
      writeFileSync(path, `c ${major}:${minor}\n`);
    },
    addDevLink: (hostPath, target) => {
      const path = devPath(hostPath);
      mkdirSync(posix.dirname(path), { recursive: true });
      rmSync(path, { force: true });
      symlinkSync(target, path);
    },
    removeDevNode: (hostPath) => rmSync(devPath(hostPath), { force: true }),
    remove: temp.remove,
  };
  return fixture;
}
