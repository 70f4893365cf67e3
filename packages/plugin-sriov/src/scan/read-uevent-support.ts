import type { Host } from '@kdp/topology';

/** The kernel's count of the uevents it raised (sysfs): every device added, removed, bound, unbound, renamed. */
export const UEVENT_SEQNUM = 'kernel/uevent_seqnum';

/**
 * Whether one read of `kernel/uevent_seqnum` tells of every device added, removed, moved, bound to or unbound
 * from a driver: the counter is readable and the kernel (procfs `sys/kernel/osrelease`) is Linux 4.14 or newer,
 * the first to raise bind and unbind uevents. False when either is unreadable.
 */
export async function readUeventSupport(host: Pick<Host, 'sysfs' | 'procfs'>): Promise<boolean> {
  const seqnum = await host.sysfs.read(UEVENT_SEQNUM);
  if (seqnum === undefined || !/^\d+$/.test(seqnum)) return false;
  const release = /^(\d+)\.(\d+)/.exec((await host.procfs.read('sys/kernel/osrelease')) ?? '');
  if (release === null) return false;
  const [major, minor] = [Number(release[1]), Number(release[2])];
  return major > 4 || (major === 4 && minor >= 14);
}
