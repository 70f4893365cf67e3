import { createHost } from '@kdp/topology';
import { createSysfsFixture, type SysfsFixture } from '@kdp/topology/testing';
import { readUeventSupport, UEVENT_SEQNUM } from './read-uevent-support';

describe('readUeventSupport', () => {
  let fixture: SysfsFixture;
  beforeEach(() => (fixture = createSysfsFixture()));
  afterEach(() => fixture.remove());
  const support = () =>
    readUeventSupport(createHost({ sysfsRoot: fixture.root, procRoot: fixture.procRoot }));

  it.each([
    ['6.8.0-45-generic', '1234', true],
    ['4.14.0', '7', true],
    ['5.14.0-362.el9.x86_64', '0', true],
    ['4.13.16', '7', false],
    ['3.10.0-1160.el7.x86_64', '7', false],
    ['6.8.0', 'lots', false],
    ['garbage', '7', false],
  ])('kernel %s with uevent_seqnum %s: %s', async (release, seqnum, expected) => {
    fixture.writeProc('sys/kernel/osrelease', `${release}\n`);
    fixture.write(UEVENT_SEQNUM, `${seqnum}\n`);
    expect(await support()).toBe(expected);
  });

  it('is false without the counter or without the kernel release', async () => {
    expect(await support()).toBe(false);
    fixture.writeProc('sys/kernel/osrelease', '6.8.0\n');
    expect(await support()).toBe(false);
    fixture.write(UEVENT_SEQNUM, '1\n');
    expect(await support()).toBe(true);
  });
});
