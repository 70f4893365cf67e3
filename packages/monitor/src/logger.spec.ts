import { createLogger } from './logger';

describe('createLogger', () => {
  it('writes one JSON object per line at or above the level, and fields cannot replace ts/level/msg', () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', write: (l) => lines.push(l), now: () => 0 });
    logger.debug('hidden');
    logger.warn('shown', { msg: 'spoof', socket: '/x' });
    expect(lines).toEqual([
      `${JSON.stringify({ ts: '1970-01-01T00:00:00.000Z', level: 'warn', msg: 'shown', socket: '/x' })}\n`,
    ]);
  });

  it('survives unserialisable fields', () => {
    const lines: string[] = [];
    const logger = createLogger({ write: (l) => lines.push(l) });
    logger.error('big', { n: 1n });
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ msg: 'big', fields: 'unserialisable' });
  });
});
