/** A listening address: `host` undefined means every interface. */
export interface HostPort {
  readonly host: string | undefined;
  readonly port: number;
}

/**
 * Parses `--metrics-address`: `HOST:PORT`, `[IPv6]:PORT` or `:PORT` (every interface); port 0 picks a free
 * port. Throws an Error whose message says what is wrong.
 */
export function parseHostPort(value: string): HostPort {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]*)):(\d{1,5})$/.exec(value);
  if (!match)
    throw new Error(`${JSON.stringify(value)} is not HOST:PORT (e.g. 0.0.0.0:9100, [::1]:9100 or :9100)`);
  const port = Number(match[3]);
  if (port > 65535) throw new Error(`${JSON.stringify(value)}: port ${port} is out of range 0-65535`);
  const host = match[1] ?? match[2];
  return { host: host === '' ? undefined : host, port };
}
