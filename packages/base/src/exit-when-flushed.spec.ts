import { PassThrough, Writable } from 'node:stream';
import { exitWhenFlushed, flushStreams } from './exit-when-flushed';

describe('flushStreams', () => {
  it('resolves only once the reader has taken everything written before', async () => {
    const pipe = new PassThrough({ highWaterMark: 1024 });
    const megabyte = 'x'.repeat(1024 * 1024);
    pipe.write(megabyte);
    let flushed = false;
    const flush = flushStreams([pipe]).then(() => (flushed = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(flushed).toBe(false);
    let read = 0;
    pipe.on('data', (chunk: Buffer) => (read += chunk.length));
    await flush;
    expect(read).toBe(megabyte.length);
  });

  it('counts a stream whose reader is gone as flushed, without an uncaught error', async () => {
    const broken = new Writable({
      write: (_chunk, _encoding, callback) =>
        callback(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' })),
    });
    await expect(flushStreams([broken])).resolves.toBeUndefined();
  });
});

describe('exitWhenFlushed', () => {
  it('exits with the code after the streams are flushed', async () => {
    const pipe = new PassThrough({ highWaterMark: 16 });
    pipe.write('x'.repeat(4096));
    const codes: number[] = [];
    const done = exitWhenFlushed(3, (code) => codes.push(code), [pipe]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(codes).toEqual([]);
    pipe.resume();
    await done;
    expect(codes).toEqual([3]);
  });
});
