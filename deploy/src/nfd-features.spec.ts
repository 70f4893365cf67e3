import { pluginDaemonSets } from './profile-rules';
import { podSpecOf } from './resolved-args';

/** NFD's local feature directory, where nfd-worker reads feature files (its own DaemonSet mounts the same path). */
const FEATURES_D = '/etc/kubernetes/node-feature-discovery/features.d';

/** Every kdp plugin DaemonSet of every build. */
const daemonSets = pluginDaemonSets().map(({ dir, plugin, object }) => ({
  where: `deploy/${dir} ${plugin}`,
  pod: podSpecOf(object),
}));

/** What is wrong with a pod's NFD feature-file wiring: the flag, the mount it names, the hostPath behind it. */
function nfdProblems(pod: ReturnType<typeof podSpecOf>): string[] {
  const problems: string[] = [];
  for (const container of pod.containers) {
    const flag = (container.args ?? []).find((arg) => arg.startsWith('--nfd-features-dir='));
    const dir = flag?.slice('--nfd-features-dir='.length);
    if (dir !== FEATURES_D) {
      problems.push(`${container.name}: --nfd-features-dir=${FEATURES_D} missing (${flag ?? 'no flag'})`);
      continue;
    }
    const mount = container.volumeMounts?.find((candidate) => candidate.mountPath === dir);
    if (mount === undefined || mount.readOnly === true) {
      problems.push(`${container.name}: ${dir} is not mounted read-write`);
      continue;
    }
    const volume = pod.volumes?.find((candidate) => candidate.name === mount.name) as
      { hostPath?: { path: string; type?: string } } | undefined;
    if (volume?.hostPath?.path !== FEATURES_D || volume.hostPath.type !== 'DirectoryOrCreate')
      problems.push(
        `${container.name}: volume ${mount.name} is not hostPath ${FEATURES_D} (DirectoryOrCreate)`,
      );
  }
  return problems;
}

describe("node feature labels: every plugin DaemonSet writes into NFD's features.d", () => {
  it('covers the five plugins and the all-in-one', () => {
    expect(new Set(daemonSets.map((d) => d.where.split(' ')[1]))).toEqual(
      new Set(['gpu', 'sriov', 'infiniband', 'usb', 'fpga', 'device-plugins']),
    );
  });

  it('passes --nfd-features-dir and mounts that directory read-write from the host (created when missing)', () => {
    expect(daemonSets.flatMap(({ where, pod }) => nfdProblems(pod).map((p) => `${where}: ${p}`))).toEqual([]);
  });

  it('the check fails without the flag, with a read-only mount, and with another host directory', () => {
    const gpu = daemonSets.find((d) => d.where === 'deploy/gpu gpu')?.pod;
    if (gpu === undefined) throw new Error('no deploy/gpu DaemonSet');
    const noFlag = structuredClone(gpu);
    for (const c of noFlag.containers) c.args = (c.args ?? []).filter((a) => !a.startsWith('--nfd-'));
    const readOnly = structuredClone(gpu);
    for (const c of readOnly.containers)
      for (const m of c.volumeMounts ?? []) if (m.mountPath === FEATURES_D) m.readOnly = true;
    const elsewhere = structuredClone(gpu);
    for (const v of elsewhere.volumes ?? []) if (v.name === 'nfd-features') v.hostPath = { path: '/tmp' };
    expect(nfdProblems(noFlag)).toEqual([expect.stringContaining('missing (no flag)')]);
    expect(nfdProblems(readOnly)).toEqual([expect.stringContaining('not mounted read-write')]);
    expect(nfdProblems(elsewhere)).toEqual([expect.stringContaining('is not hostPath')]);
  });
});
