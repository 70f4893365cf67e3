import { createLiveView } from './live-view';

describe('createLiveView', () => {
  const setup = (tty: boolean) => {
    let out = '';
    let rows = ['a', 'b'];
    let release: () => void = () => undefined;
    const view = createLiveView({
      write: (text) => {
        out += text;
        if (text.includes('\x1b[')) release();
      },
      tty,
      render: () => rows,
      intervalMs: 1,
    });
    const redrawn = () => new Promise<void>((resolve) => (release = resolve));
    return { view, out: () => out, setRows: (next: string[]) => (rows = next), redrawn };
  };

  it('appends plain snapshots and log lines without a TTY, and no escape sequences', () => {
    const { view, out } = setup(false);
    view.log('hello');
    view.snapshot('first');
    view.refresh();
    view.log('bye');
    expect(out()).toBe('hello\n\n── first ──\na\nb\nbye\n');
  });

  it('keeps the table at the bottom of a TTY: log lines go above it, refresh redraws it in place', async () => {
    const { view, out, setRows, redrawn } = setup(true);
    view.snapshot('live');
    expect(out()).toBe('── live ──\na\nb\n');
    view.log('news');
    expect(out()).toBe('── live ──\na\nb\n\x1b[3A\r\x1b[Jnews\n── live ──\na\nb\n');
    setRows(['c']);
    const done = redrawn();
    view.refresh();
    await done;
    expect(out().endsWith('\x1b[3A\r\x1b[J── live ──\nc\n')).toBe(true);
    view.close();
    view.log('after');
    expect(out().endsWith('── live ──\nc\nafter\n')).toBe(true);
  });

  it('cuts footer lines to the terminal width on a TTY', () => {
    let out = '';
    const view = createLiveView({
      write: (t) => (out += t),
      tty: true,
      render: () => ['123456789'],
      columns: () => 5,
    });
    view.snapshot('x');
    expect(out).toBe('── x\n1234\n');
  });

  it('in follow mode without a TTY appends a snapshot once changes settle, and only when the table changed', async () => {
    const { view, out, setRows } = setup(false);
    view.snapshot('t');
    view.follow();
    view.refresh();
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(out()).toBe('\n── t ──\na\nb\n');
    setRows(['z']);
    view.refresh();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(out()).toBe('\n── t ──\na\nb\n\n── t ──\nz\n');
    view.close();
  });
});
