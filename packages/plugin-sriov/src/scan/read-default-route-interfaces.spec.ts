import fc from 'fast-check';
import { parseDefaultRouteInterfaces } from './read-default-route-interfaces';

describe('parseDefaultRouteInterfaces', () => {
  it('finds the interfaces with destination and mask 0', () => {
    const text =
      'Iface\tDestination\tGateway\tFlags\tRefCnt\tUse\tMetric\tMask\tMTU\tWindow\tIRTT\n' +
      'eno1\t00000000\t0100A8C0\t0003\t0\t0\t100\t00000000\t0\t0\t0\n' +
      'eno1\t0000A8C0\t00000000\t0001\t0\t0\t100\t00FFFFFF\t0\t0\t0\n' +
      'ens1f0\t00000000\t0101A8C0\t0003\t0\t0\t200\t00000000\t0\t0\t0\n' +
      'ens2f0\t00000000\t0101A8C0\t0003\t0\t0\t200\t0000FFFF\t0\t0\t0\n';
    expect([...parseDefaultRouteInterfaces(text)]).toEqual(['eno1', 'ens1f0']);
  });

  it('never throws on garbage', () => {
    fc.assert(fc.property(fc.string({ maxLength: 300 }), (text) => void parseDefaultRouteInterfaces(text)));
  });
});
