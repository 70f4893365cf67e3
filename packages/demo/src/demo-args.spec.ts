import { parseDemoArgs } from './demo-args';

describe('parseDemoArgs', () => {
  it('runs endlessly by default, once with --once', () => {
    expect(parseDemoArgs([])).toEqual({ once: false, help: false });
    expect(parseDemoArgs(['--once'])).toEqual({ once: true, help: false });
    expect(parseDemoArgs(['-h'])).toEqual({ once: false, help: true });
  });

  it('refuses anything else, naming it', () => {
    expect(() => parseDemoArgs(['--once', 'x'])).toThrow('unknown argument "x"');
  });
});
