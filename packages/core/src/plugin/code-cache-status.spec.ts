import { codeCacheStatus } from './code-cache-status';

describe('codeCacheStatus', () => {
  it("reads what the image's /app/main.js left on the global object", () => {
    for (const status of ['accepted', 'rejected', 'absent'])
      expect(codeCacheStatus({ [Symbol.for('kdp.codeCache')]: status })).toBe(status);
  });

  it('is undefined without an image loader, or for a value it does not know', () => {
    expect(codeCacheStatus({})).toBeUndefined();
    expect(codeCacheStatus({ [Symbol.for('kdp.codeCache')]: 'maybe' })).toBeUndefined();
    expect(codeCacheStatus()).toBeUndefined();
  });
});
