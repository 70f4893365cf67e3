import { parseHostPort } from './parse-host-port';

describe('parseHostPort', () => {
  it.each([
    ['127.0.0.1:9100', { host: '127.0.0.1', port: 9100 }],
    ['0.0.0.0:0', { host: '0.0.0.0', port: 0 }],
    ['localhost:8080', { host: 'localhost', port: 8080 }],
    [':9100', { host: undefined, port: 9100 }],
    ['[::1]:9100', { host: '::1', port: 9100 }],
    ['[::]:65535', { host: '::', port: 65535 }],
  ])('parses %s', (value, expected) => {
    expect(parseHostPort(value)).toEqual(expected);
  });

  it.each([
    ['9100', '"9100" is not HOST:PORT (e.g. 0.0.0.0:9100, [::1]:9100 or :9100)'],
    ['localhost', '"localhost" is not HOST:PORT (e.g. 0.0.0.0:9100, [::1]:9100 or :9100)'],
    ['host:port', '"host:port" is not HOST:PORT (e.g. 0.0.0.0:9100, [::1]:9100 or :9100)'],
    ['::1:9100', '"::1:9100" is not HOST:PORT (e.g. 0.0.0.0:9100, [::1]:9100 or :9100)'],
    ['a b:1', '"a b:1" is not HOST:PORT (e.g. 0.0.0.0:9100, [::1]:9100 or :9100)'],
    ['host:65536', '"host:65536": port 65536 is out of range 0-65535'],
    ['host:-1', '"host:-1" is not HOST:PORT (e.g. 0.0.0.0:9100, [::1]:9100 or :9100)'],
  ])('rejects %j', (value, message) => {
    expect(() => parseHostPort(value)).toThrow(message);
  });
});
