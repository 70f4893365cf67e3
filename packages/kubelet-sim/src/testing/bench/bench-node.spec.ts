import { benchNode } from './bench-node';

describe('benchNode', () => {
  it('is the Node running the bench without KDP_BENCH_NODE (or with it empty), with its version', () => {
    expect(benchNode({})).toEqual({ path: process.execPath, version: process.version });
    expect(benchNode({ KDP_BENCH_NODE: '' }).path).toBe(process.execPath);
  });

  it('is KDP_BENCH_NODE when set, and fails when that is no Node', () => {
    expect(benchNode({ KDP_BENCH_NODE: process.execPath })).toEqual({
      path: process.execPath,
      version: process.version,
    });
    expect(() => benchNode({ KDP_BENCH_NODE: '/nonexistent/node' })).toThrow(/ENOENT/);
  });
});
