import { formatConfigIssues } from './config-error';

describe('formatConfigIssues', () => {
  it('names file, field and problem, one line per issue', () => {
    expect(
      formatConfigIssues('/etc/kdp/c.yaml', [
        { path: 'resources[0].name', message: 'expected a string' },
        { path: '', message: 'the document is empty' },
      ]),
    ).toBe('/etc/kdp/c.yaml: resources[0].name: expected a string\n/etc/kdp/c.yaml: the document is empty');
  });

  it('escapes control characters echoed from the file, so an issue never spills onto a line of its own', () => {
    const text = formatConfigIssues('c.yaml', [
      { path: 'dirs["a\nb"]', message: 'must lie inside bitstreamDir a\nb\u0007' },
    ]);
    expect(text.split('\n')).toEqual(['c.yaml: dirs["a\\nb"]: must lie inside bitstreamDir a\\nb\\u0007']);
  });
});
