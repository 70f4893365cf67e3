import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { isIPv4 } from 'node:net';
import { systemClock, type Clock } from '@kdp/base';
import {
  derBitString,
  derBoolean,
  derExplicit,
  derImplicit,
  derOctetString,
  derOid,
  derSequence,
  derSet,
  derTime,
  derUnsignedInteger,
  derUtf8,
} from './der';

/** Options of {@link createSelfSignedCert}. */
export interface SelfSignedCertOptions {
  /** DNS names in the subjectAltName; default `['localhost']`. */
  readonly dnsNames?: readonly string[];
  /** IPv4 addresses in the subjectAltName; default `['127.0.0.1']`. */
  readonly ipAddresses?: readonly string[];
  /** The subject's (and issuer's) common name; default `kubelet-sim-apiserver`. */
  readonly commonName?: string;
  /** Validity from one hour before now; default 365 days. */
  readonly days?: number;
  readonly clock?: Clock;
}

/** A certificate and its private key, both PEM. */
export interface SelfSignedCert {
  /** The X.509 certificate, PEM; it is its own CA (clients trust it as `certificate-authority-data`). */
  readonly certPem: string;
  /** The ECDSA P-256 private key, PKCS#8 PEM. */
  readonly keyPem: string;
}

const oid = {
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  commonName: '2.5.4.3',
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  subjectAltName: '2.5.29.17',
} as const;

const extension = (id: string, critical: boolean, value: Buffer): Buffer =>
  derSequence(derOid(id), ...(critical ? [derBoolean(true)] : []), derOctetString(value));

const toPem = (label: string, der: Buffer): string =>
  `-----BEGIN ${label}-----\n${(der.toString('base64').match(/.{1,64}/g) ?? []).join('\n')}\n-----END ${label}-----\n`;

function ipBytes(ip: string): Buffer {
  if (!isIPv4(ip)) throw new Error(`not an IPv4 address: ${ip}`);
  return Buffer.from(ip.split('.').map(Number));
}

/**
 * Generates a self-signed X.509 v3 certificate (ECDSA P-256, SHA-256) for a local server: a CA certificate
 * whose subjectAltName holds the given DNS names and IPs, usable for TLS server authentication. Pure
 * `node:crypto` and a small DER encoder, no openssl binary.
 */
export function createSelfSignedCert(options: SelfSignedCertOptions = {}): SelfSignedCert {
  const clock = options.clock ?? systemClock;
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const name = derSequence(
    derSet(derSequence(derOid(oid.commonName), derUtf8(options.commonName ?? 'kubelet-sim-apiserver'))),
  );
  const serial = randomBytes(16);
  serial[0] = (serial[0] ?? 0) & 0x7f;
  const notBefore = new Date(clock.now() - 60 * 60 * 1000);
  const notAfter = new Date(clock.now() + (options.days ?? 365) * 24 * 60 * 60 * 1000);
  const altNames = [
    ...(options.dnsNames ?? ['localhost']).map((dns) => derImplicit(2, Buffer.from(dns, 'ascii'))),
    ...(options.ipAddresses ?? ['127.0.0.1']).map((ip) => derImplicit(7, ipBytes(ip))),
  ];
  const signatureAlgorithm = derSequence(derOid(oid.ecdsaWithSha256));
  const tbs = derSequence(
    derExplicit(0, derUnsignedInteger(Buffer.from([2]))),
    derUnsignedInteger(serial),
    signatureAlgorithm,
    name,
    derSequence(derTime(notBefore), derTime(notAfter)),
    name,
    spki,
    derExplicit(
      3,
      derSequence(
        extension(oid.basicConstraints, true, derSequence(derBoolean(true))),
        // digitalSignature (bit 0) and keyCertSign (bit 5): 0b10000100, 2 unused bits.
        extension(oid.keyUsage, true, Buffer.from([0x03, 0x02, 0x02, 0x84])),
        extension(oid.extKeyUsage, false, derSequence(derOid(oid.serverAuth))),
        extension(oid.subjectAltName, false, derSequence(...altNames)),
      ),
    ),
  );
  const signature = sign('sha256', tbs, { key: privateKey, dsaEncoding: 'der' });
  const certificate = derSequence(tbs, signatureAlgorithm, derBitString(signature));
  return {
    certPem: toPem('CERTIFICATE', certificate),
    keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}
