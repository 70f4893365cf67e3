import { createLogger, isLogLevel, LOG_LEVELS } from './create-logger';

function capture() {
  const lines: string[] = [];
  return { lines, destination: { write: (line: string) => lines.push(line) } };
}

describe('createLogger', () => {
  it('writes one JSON object per line with level, time, name, pid and msg', () => {
    const out = capture();
    const logger = createLogger({ name: 'test-plugin', destination: out.destination, base: { node: 'n1' } });
    logger.info({ resource: 'example.com/dev' }, 'registered');
    expect(out.lines).toHaveLength(1);
    const line = JSON.parse(out.lines[0] ?? '');
    expect(line).toEqual({
      level: 'info',
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      name: 'test-plugin',
      pid: process.pid,
      node: 'n1',
      resource: 'example.com/dev',
      msg: 'registered',
    });
  });

  it('honours the level', () => {
    const out = capture();
    const logger = createLogger({ level: 'warn', destination: out.destination });
    logger.info('hidden');
    logger.warn('shown');
    logger.error({ err: new Error('boom') }, 'failed');
    expect(out.lines.map((l) => JSON.parse(l).msg)).toEqual(['shown', 'failed']);
    expect(JSON.parse(out.lines[1] ?? '').err).toMatchObject({
      type: 'Error',
      message: 'boom',
      stack: expect.any(String),
    });
    const silent = capture();
    createLogger({ level: 'silent', destination: silent.destination }).error('nothing');
    expect(silent.lines).toEqual([]);
  });

  it('knows the accepted levels', () => {
    expect(LOG_LEVELS).toEqual(['trace', 'debug', 'info', 'warn', 'error']);
    expect(isLogLevel('debug')).toBe(true);
    expect(isLogLevel('verbose')).toBe(false);
    expect(isLogLevel('fatal')).toBe(false);
  });
});
