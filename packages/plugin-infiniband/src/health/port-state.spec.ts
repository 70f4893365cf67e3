import fc from 'fast-check';
import { isPortUp, normalizeLinkLayer, parsePortAttribute } from './port-state';

describe('parsePortAttribute', () => {
  it('reads the kernel format of state and phys_state', () => {
    expect(parsePortAttribute('4: ACTIVE')).toEqual({ code: 4, name: 'ACTIVE' });
    expect(parsePortAttribute('5: LinkUp\n')).toEqual({ code: 5, name: 'LinkUp' });
    expect(parsePortAttribute('3: Disabled')).toEqual({ code: 3, name: 'Disabled' });
    expect(parsePortAttribute('2: Polling')).toEqual({ code: 2, name: 'Polling' });
    expect(parsePortAttribute('1: DOWN')).toEqual({ code: 1, name: 'DOWN' });
  });

  it('refuses anything else', () => {
    for (const text of [undefined, '', 'ACTIVE', '4', '4:', 'x: ACTIVE', '-1: DOWN', '4: ', '1234: X']) {
      expect(parsePortAttribute(text)).toBeUndefined();
    }
  });

  it('never throws and only returns small codes, whatever the file holds', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (text) => {
        const parsed = parsePortAttribute(text);
        if (parsed !== undefined) {
          expect(parsed.code).toBeGreaterThanOrEqual(0);
          expect(parsed.code).toBeLessThan(1000);
          expect(parsed.name.length).toBeGreaterThan(0);
        }
      }),
    );
  });
});

describe('isPortUp', () => {
  it('needs state ACTIVE and phys_state LinkUp', () => {
    const active = { code: 4, name: 'ACTIVE' };
    const linkUp = { code: 5, name: 'LinkUp' };
    expect(isPortUp(active, linkUp)).toBe(true);
    expect(isPortUp({ code: 2, name: 'INIT' }, linkUp)).toBe(false);
    expect(isPortUp(active, { code: 3, name: 'Disabled' })).toBe(false);
    expect(isPortUp(undefined, linkUp)).toBe(false);
    expect(isPortUp(active, undefined)).toBe(false);
  });
});

describe('normalizeLinkLayer', () => {
  it('spells the two link layers one way and keeps others bounded', () => {
    expect(normalizeLinkLayer('InfiniBand')).toBe('InfiniBand');
    expect(normalizeLinkLayer('ethernet')).toBe('Ethernet');
    expect(normalizeLinkLayer('')).toBeUndefined();
    expect(normalizeLinkLayer(undefined)).toBeUndefined();
    expect(normalizeLinkLayer('x'.repeat(100))).toHaveLength(40);
  });
});
