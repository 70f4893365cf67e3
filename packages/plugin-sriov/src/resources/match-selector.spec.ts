import { matchSelector } from './match-selector';
import { testVf } from '../testing/test-vf';

describe('matchSelector', () => {
  const vf = testVf();

  it('passes when every key present matches (AND across keys, OR within a list)', () => {
    expect(
      matchSelector(
        vf,
        {
          vendors: ['15b3', '8086'],
          devices: ['0x154C'],
          drivers: ['iavf'],
          pciAddresses: ['0000:3b:02.1'],
          pfNames: ['ENS1F0#0-3'],
          rootDevices: ['0000:3b:00.0#1'],
          linkTypes: ['ETHER'],
        },
        'netDevice',
      ),
    ).toEqual({ ok: true });
    expect(matchSelector(vf, {}, 'netDevice')).toEqual({ ok: true });
  });

  it.each([
    [{ vendors: ['15b3'] }, 'vendor 8086 does not match selector vendors=[15b3]', false],
    [{ devices: ['1018'] }, 'device 154c does not match selector devices=[1018]', false],
    [{ drivers: ['vfio-pci'] }, 'driver iavf does not match selector drivers=[vfio-pci]', false],
    [
      { pciAddresses: ['0000:3b:02.0'] },
      'address 0000:3b:02.1 does not match selector pciAddresses=[0000:3b:02.0]',
      false,
    ],
    [{ acpiIndexes: ['101'] }, 'acpi_index absent does not match selector acpiIndexes=[101]', false],
    [{ pfNames: ['ens1f0#2-7'] }, 'VF 1 of ens1f0 does not match selector pfNames=[ens1f0#2-7]', false],
    [{ pfNames: ['ens2f0'] }, 'VF 1 of ens1f0 does not match selector pfNames=[ens2f0]', false],
    [
      { rootDevices: ['0000:3b:00.0#0'] },
      'VF 1 of 0000:3b:00.0 does not match selector rootDevices=[0000:3b:00.0#0]',
      false,
    ],
    [{ linkTypes: ['infiniband'] }, 'link type ether does not match selector linkTypes=[infiniband]', false],
    [{ isRdma: true }, 'no RDMA device (infiniband/) but selector isRdma=true', true],
    [{ pKeys: ['0x7fff'] }, 'no InfiniBand partition key (port 1, index 0); selector pKeys=[0x7fff]', true],
  ])('fails %j naming the selector', (selector, reason, transient) => {
    expect(matchSelector(vf, selector, 'netDevice')).toEqual({ ok: false, reason, transient });
  });

  it('calls failures from missing driver, netdev or RDMA data transient', () => {
    expect(matchSelector(testVf({ driver: undefined }), { drivers: ['iavf'] }, 'netDevice')).toEqual({
      ok: false,
      reason: 'no driver is bound; selector drivers=[iavf]',
      transient: true,
    });
    const { linkType: _drop, ...noLink } = testVf();
    expect(matchSelector(noLink, { linkTypes: ['ether'] }, 'netDevice')).toMatchObject({
      ok: false,
      transient: true,
    });
  });

  it('matches PFs by their own name and address, and never by a VF range', () => {
    const { vf: _vf, ...pfBase } = testVf({ address: '0000:3b:00.0', pfName: 'ens1f0' });
    expect(matchSelector(pfBase, { pfNames: ['ens1f0'] }, 'netDevice')).toEqual({ ok: true });
    expect(matchSelector(pfBase, { rootDevices: ['0000:3b:00.0'] }, 'netDevice')).toEqual({ ok: true });
    expect(matchSelector(pfBase, { pfNames: ['ens1f0#0'] }, 'netDevice')).toMatchObject({ ok: false });
  });

  it('compares pKeys with the default partition key numerically, as upstream documents them', () => {
    const ib = testVf({ linkType: 'infiniband', pKey: '0x0001', rdmaDevices: ['mlx5_2'] });
    expect(matchSelector(ib, { pKeys: ['0x1', '0xabcd'] }, 'netDevice')).toEqual({ ok: true });
    expect(matchSelector(ib, { pKeys: ['1'] }, 'netDevice')).toEqual({ ok: true });
    expect(matchSelector(ib, { pKeys: ['0x7FFF'] }, 'netDevice')).toEqual({
      ok: false,
      reason: 'partition key 0x0001 does not match selector pKeys=[0x7FFF]',
      transient: false,
    });
  });

  it('uses only the accelerator selectors for accelerator pools', () => {
    const qat = testVf({ kind: 'accelerator', vendor: '8086', device: '37c9', driver: 'vfio-pci' });
    expect(matchSelector(qat, { devices: ['37c9'], pfNames: ['nothing'] }, 'accelerator')).toEqual({
      ok: true,
    });
  });
});
