import fc from 'fast-check';
import { matchSelectors } from './match-selectors';
import type { RdmaSelectors } from '../config';
import type { RdmaHca } from '../scan/read-rdma-inventory';

const port = (number: number, linkLayer: string) => ({
  number,
  linkLayer,
  up: true,
  state: { code: 4, name: 'ACTIVE' },
  physState: { code: 5, name: 'LinkUp' },
});

const vpi: RdmaHca = {
  name: 'mlx4_0',
  path: '/sys/class/infiniband/mlx4_0',
  pciAddress: '0000:3b:00.0',
  pci: {
    address: '0000:3b:00.0',
    sysfsPath: 'devices/pci0000:3a/0000:3b:00.0',
    vendor: '0x15b3',
    device: '0x1007',
    driver: 'mlx4_core',
    numaSource: 'numa_node',
    pciePath: [],
  },
  ports: [port(1, 'InfiniBand'), port(2, 'Ethernet')],
  charDevices: [],
  netdevs: ['ib0', 'eth2'],
  numaNodes: [0],
  pciePath: [],
};

const selectors = (partial: Partial<RdmaSelectors>): RdmaSelectors => ({
  vendors: [],
  deviceIDs: [],
  drivers: [],
  ifNames: [],
  linkTypes: [],
  ...partial,
});

describe('matchSelectors', () => {
  it('matches everything with empty selectors, counting every port', () => {
    expect(matchSelectors(vpi, selectors({}))).toEqual({ matched: true, ports: vpi.ports });
  });

  it('compares PCI IDs as hex, with or without 0x, in any case', () => {
    expect(matchSelectors(vpi, selectors({ vendors: ['15B3'], deviceIDs: ['0x1007'] })).matched).toBe(true);
    expect(matchSelectors(vpi, selectors({ vendors: ['8086'] }))).toEqual({
      matched: false,
      reason: 'vendor 15b3 not in vendors=[8086]',
    });
  });

  it('ANDs keys and ORs values; the deprecated devices list counts as ifNames', () => {
    expect(
      matchSelectors(vpi, selectors({ drivers: ['mlx5_core', 'mlx4_core'], ifNames: ['ib0'] })).matched,
    ).toBe(true);
    expect(matchSelectors(vpi, selectors({ drivers: ['mlx4_core'], ifNames: ['ib7'] }))).toEqual({
      matched: false,
      reason: 'interfaces [ib0,eth2] not in ifNames=[ib7]',
    });
    expect(matchSelectors(vpi, selectors({ ifNames: ['ib7'] }), ['eth2']).matched).toBe(true);
  });

  it('linkTypes keeps only the ports of those link layers', () => {
    expect(matchSelectors(vpi, selectors({ linkTypes: ['ether'] }))).toEqual({
      matched: true,
      ports: [vpi.ports[1]],
    });
    const ibOnly = { ...vpi, ports: [port(1, 'InfiniBand')] };
    expect(matchSelectors(ibOnly, selectors({ linkTypes: ['roce'] }))).toEqual({
      matched: false,
      reason: 'link layers [InfiniBand] not in linkTypes=[roce]',
    });
  });

  it('never matches a device without a PCI function through PCI selectors', () => {
    const { pci: _pci, pciAddress: _address, ...soft } = vpi;
    expect(matchSelectors(soft, selectors({ drivers: ['rxe'] }))).toEqual({
      matched: false,
      reason: 'driver none does not match selector drivers=[rxe]',
    });
  });

  it('agrees with a plain reading of the rules for arbitrary selector lists', () => {
    const ids = fc.constantFrom('15b3', '0x15B3', '8086', '1007', '1017', 'zz', '');
    fc.assert(
      fc.property(fc.array(ids, { maxLength: 3 }), fc.array(ids, { maxLength: 3 }), (vendors, deviceIDs) => {
        const norm = (v: string) => v.toLowerCase().replace(/^0x/, '').padStart(4, '0');
        const expected =
          (vendors.length === 0 || vendors.map(norm).includes('15b3')) &&
          (deviceIDs.length === 0 || deviceIDs.map(norm).includes('1007'));
        expect(matchSelectors(vpi, selectors({ vendors, deviceIDs })).matched).toBe(expected);
      }),
    );
  });
});
