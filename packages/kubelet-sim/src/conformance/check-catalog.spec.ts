import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkCatalog, checkResult, plannedChecks, strictCheck } from './check-catalog';

const readme = readFileSync(join(__dirname, '../../README.md'), 'utf8');

describe('checkCatalog', () => {
  it('is the README table of checks: the same ids in the same order, with their level and rules', () => {
    const rows = [
      ...readme.matchAll(/^\| `([a-z-]+)` +\| (required|recommended) +\| .* \| (P-[\d, P-]+?) *\|$/gm),
    ].map(([, id, level, rules]) => ({ id, level, rules: rules?.split(', ') }));
    expect(rows).toEqual(
      Object.values(checkCatalog).map(({ id, level, rules }) => ({ id, level, rules: [...rules] })),
    );
  });

  it('plans every check once, one per restart for reregister-after-restart', () => {
    const ids = (restarts: number): string[] => plannedChecks(restarts).map((p) => p.id);
    expect(ids(1)).toEqual(Object.values(checkCatalog).map((d) => d.id));
    expect(ids(0)).not.toContain('reregister-after-restart');
    expect(ids(2).filter((id) => id.startsWith('reregister-after-restart'))).toEqual([
      'reregister-after-restart-1',
      'reregister-after-restart-2',
    ]);
  });

  it('cites level and rules in every reason but a pass; strict turns only a recommended warning into a failure', () => {
    const drop = checkCatalog.reregisterAfterDrop;
    expect(checkResult(drop, 'pass', 'after 3 ms').reason).toBe('after 3 ms');
    const warned = checkResult(drop, 'warn', 'never');
    expect(warned).toEqual({
      id: 'reregister-after-stream-drop',
      title: drop.title,
      level: 'recommended',
      rules: ['P-19', 'P-21'],
      status: 'warn',
      reason: 'never (recommended: P-19, P-21)',
    });
    expect(strictCheck(warned, true)).toEqual({ ...warned, status: 'fail' });
    expect(strictCheck(warned, false)).toBe(warned);
    const skipped = checkResult(drop, 'skip', 'not run');
    expect(strictCheck(skipped, true)).toBe(skipped);
    const failed = checkResult(checkCatalog.allocate, 'fail', 'no response');
    expect(failed.reason).toBe('no response (required: P-27)');
    expect(strictCheck(failed, true)).toBe(failed);
  });
});
