/** Options of {@link createLiveView}. */
export interface LiveViewOptions {
  readonly write: (text: string) => void;
  /** A terminal: the table stays at the bottom and is redrawn in place; otherwise snapshots are appended. */
  readonly tty: boolean;
  /** The table's current lines. */
  readonly render: () => string[];
  /** The terminal's width: footer lines are cut to it so that redrawing in place never meets a wrapped line. */
  readonly columns?: () => number | undefined;
  /** Minimum time between two redraws (TTY) or the quiet time before an appended snapshot (follow mode); default 150 ms. */
  readonly intervalMs?: number;
}

/** Console output with a live device table. */
export interface LiveView {
  readonly tty: boolean;
  /** Prints lines: above the table on a TTY, appended otherwise. */
  log(...lines: string[]): void;
  /** TTY: the table appears (under this title) at the bottom and is kept there; otherwise: one appended snapshot. */
  snapshot(title: string): void;
  /** The state changed: redraw the table (TTY), or append a snapshot once things settle (follow mode). */
  refresh(): void;
  /** Without a TTY, append a snapshot after every change from now on (the endless mode). */
  follow(): void;
  /** Stops redrawing; the table stays on screen as last drawn. */
  close(): void;
}

const ERASE_DOWN = '\x1b[J';
const cursorUp = (lines: number): string => `\x1b[${lines}A\r`;

/** Creates the view: a footer table redrawn with ANSI cursor movement on a TTY, plain snapshots elsewhere. */
export function createLiveView(options: LiveViewOptions): LiveView {
  const { write, tty, render } = options;
  const intervalMs = options.intervalMs ?? 150;
  let title: string | undefined;
  let footerLines = 0;
  let following = false;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let lastSnapshot = '';

  const table = (): string[] => [`── ${title ?? ''} ──`, ...render()];
  const eraseFooter = (): void => {
    if (footerLines > 0) write(cursorUp(footerLines) + ERASE_DOWN);
    footerLines = 0;
  };
  const drawFooter = (): void => {
    if (title === undefined || closed) return;
    const width = options.columns?.();
    const lines = table().map((line) =>
      width !== undefined && line.length >= width ? line.slice(0, width - 1) : line,
    );
    write(`${lines.join('\n')}\n`);
    footerLines = lines.length;
  };
  const appendSnapshot = (): void => {
    const text = table().join('\n');
    lastSnapshot = text.slice(text.indexOf('\n'));
    write(`\n${text}\n`);
  };
  const schedule = (action: () => void): void => {
    if (timer !== undefined || closed) return;
    timer = setTimeout(() => {
      timer = undefined;
      action();
    }, intervalMs);
  };

  return {
    tty,
    log: (...lines) => {
      if (tty) eraseFooter();
      write(`${lines.join('\n')}\n`);
      if (tty) drawFooter();
    },
    snapshot: (next) => {
      title = next;
      if (!tty) {
        appendSnapshot();
        return;
      }
      eraseFooter();
      drawFooter();
    },
    refresh: () => {
      if (tty) {
        schedule(() => {
          eraseFooter();
          drawFooter();
        });
      } else if (following) {
        if (timer !== undefined) clearTimeout(timer);
        timer = undefined;
        schedule(() => {
          const text = table().join('\n');
          if (text.slice(text.indexOf('\n')) !== lastSnapshot) appendSnapshot();
        });
      }
    },
    follow: () => {
      following = true;
    },
    close: () => {
      closed = true;
      footerLines = 0;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}
