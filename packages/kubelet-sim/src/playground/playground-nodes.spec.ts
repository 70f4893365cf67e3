import { playgroundNodes } from './playground-nodes';

describe('playgroundNodes', () => {
  it('keeps the first node on the given directory and socket, and gives node i its own below them', () => {
    expect(
      playgroundNodes({
        nodeName: 'n',
        count: 2,
        pluginsRegistryDir: '/r',
        podResourcesSocket: '/p/kubelet.sock',
        stateDir: '/s',
      }),
    ).toEqual([
      { name: 'n', pluginsRegistryDir: '/r', podResourcesSocket: '/p/kubelet.sock', kubeletDir: '/s/n' },
      {
        name: 'n-2',
        pluginsRegistryDir: '/r/n-2',
        podResourcesSocket: '/p/n-2/kubelet.sock',
        kubeletDir: '/s/n-2',
      },
    ]);
    expect(
      playgroundNodes({
        nodeName: 'n',
        count: 1,
        pluginsRegistryDir: '/r',
        podResourcesSocket: undefined,
        stateDir: '/s',
      }),
    ).toEqual([{ name: 'n', pluginsRegistryDir: '/r', kubeletDir: '/s/n' }]);
  });
});
