import { parseDemoArgs } from './demo-args';

describe('parseDemoArgs', () => {
  it('runs endlessly by default, once with --once', () => {
    expect(parseDemoArgs([])).toEqual({ once: false, allInOne: false, help: false });
    expect(parseDemoArgs(['--once'])).toEqual({ once: true, allInOne: false, help: false });
    expect(parseDemoArgs(['-h'])).toEqual({ once: false, allInOne: false, help: true });
  });

  it('runs the plugins in one process with --all-in-one', () => {
    expect(parseDemoArgs(['--all-in-one', '--once'])).toEqual({ once: true, allInOne: true, help: false });
  });

  it('refuses anything else, naming it', () => {
    expect(() => parseDemoArgs(['--once', 'x'])).toThrow('unknown argument "x"');
  });
});
