import { X509Certificate, createPrivateKey } from 'node:crypto';
import { createFakeClock } from '../testing/fake-clock';
import { derOid, derTime, derUnsignedInteger } from './der';
import { createSelfSignedCert } from './self-signed-cert';

describe('createSelfSignedCert', () => {
  it('makes a CA certificate for 127.0.0.1 and localhost that verifies with its own key', () => {
    const { certPem, keyPem } = createSelfSignedCert({ clock: createFakeClock(Date.UTC(2026, 0, 2)) });
    const cert = new X509Certificate(certPem);
    expect(cert.ca).toBe(true);
    expect(cert.subjectAltName).toBe('DNS:localhost, IP Address:127.0.0.1');
    expect(cert.subject).toBe('CN=kubelet-sim-apiserver');
    expect(cert.issuer).toBe(cert.subject);
    expect(cert.verify(cert.publicKey)).toBe(true);
    expect(cert.checkPrivateKey(createPrivateKey(keyPem))).toBe(true);
    expect(cert.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(cert.checkHost('localhost')).toBe('localhost');
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    expect(new Date(cert.validFrom).toISOString()).toBe('2026-01-01T23:00:00.000Z');
    expect(new Date(cert.validTo).toISOString()).toBe('2027-01-02T00:00:00.000Z');
  });

  it('takes other names, and refuses an address that is not IPv4', () => {
    const cert = new X509Certificate(
      createSelfSignedCert({ dnsNames: ['a.example', 'b'], ipAddresses: ['10.0.0.1'] }).certPem,
    );
    expect(cert.subjectAltName).toBe('DNS:a.example, DNS:b, IP Address:10.0.0.1');
    expect(() => createSelfSignedCert({ ipAddresses: ['::1'] })).toThrow('not an IPv4 address: ::1');
  });
});

describe('DER encoding', () => {
  it('encodes OIDs, integers and both time forms as X.690 says', () => {
    expect(derOid('1.2.840.10045.4.3.2').toString('hex')).toBe('06082a8648ce3d040302');
    expect(derUnsignedInteger(Buffer.from([0, 0, 0x80])).toString('hex')).toBe('02020080');
    expect(derUnsignedInteger(Buffer.from([0])).toString('hex')).toBe('020100');
    expect(
      derTime(new Date(Date.UTC(2049, 11, 31, 23, 59, 58)))
        .toString('ascii')
        .slice(2),
    ).toBe('491231235958Z');
    expect(
      derTime(new Date(Date.UTC(2050, 0, 1)))
        .toString('ascii')
        .slice(2),
    ).toBe('20500101000000Z');
  });
});
