import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import fc from 'fast-check';

const repo = resolve(__dirname, '../../..');
const driver = join(__dirname, 'debian-archive-driver.mjs');

type Attempt<T> = { ok: T; error?: undefined } | { ok?: undefined; error: { name: string; message: string } };

/** Runs one request through the driver (tools/image/lib/debian-archive.mjs in a child process). */
function call<T>(request: object): Promise<T> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [driver], { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`driver exited ${code}: ${Buffer.concat(err).toString()}`));
      else resolvePromise(JSON.parse(Buffer.concat(out).toString()) as T);
    });
    child.stdin.end(JSON.stringify(request));
  });
}

const compare = (pairs: ReadonlyArray<readonly [string, string]>) =>
  call<Attempt<number>[]>({ op: 'compare', pairs });

describe('Debian version comparison (dpkg order)', () => {
  it('orders the table as dpkg does', async () => {
    const table: ReadonlyArray<readonly [string, string, number]> = [
      ['2.36-9+deb12u14', '2.36-9+deb12u9', 1],
      ['1:1.0', '2.0', 1],
      ['1.0~rc1', '1.0', -1],
      ['1.0', '1.0', 0],
      ['0:1.0', '1.0', 0],
      ['1.01', '1.1', 0],
      ['1.0-1', '1.0', 1],
      ['1.0~~', '1.0~', -1],
      ['1.0~~a', '1.0~~', 1],
      ['1.0a', '1.0', 1],
      ['1.0+', '1.0a', 1],
      ['1.2.3', '1.2.10', -1],
      ['252.39-1~deb12u2', '252.39-1', -1],
      ['252.39-1~deb12u2', '252.38-1~deb12u1', 1],
      ['12.2.0-14+deb12u1', '12.2.0-14', 1],
      ['2:0.1', '1:99', 1],
    ];
    const results = await compare(table.map(([a, b]) => [a, b] as const));
    expect(results.map((r, i) => [table[i]?.[0], table[i]?.[1], r.ok])).toEqual(
      table.map(([a, b, expected]) => [a, b, expected]),
    );
  });

  it('rejects what is not a version with a clear Error', async () => {
    const results = await compare([
      ['', '1'],
      ['a1', '1'],
      ['x:1', '1'],
      ['1.0-', '1'],
      ['1 0', '1'],
      ['1:2:3', '1'],
    ]);
    for (const result of results) {
      expect(result.error?.name).toBe('Error');
      expect(result.error?.message).toMatch(/^not a Debian version: /);
    }
  });

  const part = (chars: string, minLength: number) =>
    fc.string({ unit: fc.constantFrom(...chars.split('')), minLength, maxLength: 6 });
  const version = fc
    .tuple(
      fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
      fc.integer({ min: 0, max: 20 }),
      part('0123456789.+~a-', 0),
      fc.option(part('0123456789.+~ab', 1), { nil: undefined }),
    )
    .map(
      ([epoch, head, tail, revision]) =>
        `${epoch === undefined ? '' : `${epoch}:`}${head}${tail}${revision === undefined ? (tail.includes('-') ? '-1' : '') : `-${revision}`}`,
    );

  it('is antisymmetric and transitive on generated versions (fast-check)', async () => {
    const groups = fc.sample(fc.array(version, { minLength: 3, maxLength: 6 }), { numRuns: 60, seed: 42 });
    const pairs = groups.flatMap((group) => group.flatMap((a) => group.map((b) => [a, b] as const)));
    const results = await compare(pairs);
    let next = 0;
    for (const group of groups) {
      const matrix = group.map(() =>
        group.map(() => {
          const result = results[next++];
          if (result?.ok === undefined) throw new Error(`comparison failed: ${JSON.stringify(result)}`);
          return result.ok;
        }),
      );
      const at = (i: number, j: number) => matrix[i]?.[j] ?? Number.NaN;
      group.forEach((a, i) => {
        expect([a, at(i, i)]).toEqual([a, 0]);
        group.forEach((b, j) => {
          expect([a, b, at(i, j)]).toEqual([a, b, -at(j, i) || 0]);
          group.forEach((c, k) => {
            if (at(i, j) <= 0 && at(j, k) <= 0) expect([a, b, c, at(i, k) <= 0]).toEqual([a, b, c, true]);
          });
        });
      });
    }
  });

  it('agrees with dpkg --compare-versions where dpkg is installed', async () => {
    const run = promisify(execFile);
    const dpkg = await run('dpkg', ['--version']).then(
      () => true,
      () => false,
    );
    if (!dpkg) {
      console.warn('debian-archive.spec: dpkg not installed; the cross-check against dpkg is skipped');
      return;
    }
    const pairs = fc.sample(fc.tuple(version, version), { numRuns: 40, seed: 7 });
    const ours = await compare(pairs);
    for (const [index, [a, b]] of pairs.entries()) {
      const lt = await run('dpkg', ['--compare-versions', a, 'lt', b]).then(
        () => true,
        () => false,
      );
      const gt = await run('dpkg', ['--compare-versions', a, 'gt', b]).then(
        () => true,
        () => false,
      );
      expect([a, b, ours[index]?.ok]).toEqual([a, b, lt ? -1 : gt ? 1 : 0]);
    }
  });
});

const stanza = (name: string, version: string, arch: string, filename: string, sha = 'a'.repeat(64)) =>
  `Package: ${name}\nSource: x\nVersion: ${version}\nArchitecture: ${arch}\nDescription: one\n two\nFilename: ${filename}\nSHA256: ${sha}\n`;

describe('Packages index parser', () => {
  it('reads stanzas, continuation lines and blank-line separators', async () => {
    const text = `${stanza('libc6', '2.36-9+deb12u14', 'amd64', 'pool/main/g/glibc/libc6_2.36-9+deb12u14_amd64.deb')}\n\n${stanza('tzdata', '2025b-0+deb12u1', 'all', 'pool/main/t/tzdata/tzdata_2025b-0+deb12u1_all.deb', 'b'.repeat(64))}`;
    const [result] = await call<Attempt<unknown[]>[]>({ op: 'parsePackages', texts: [text, ''] });
    expect(result?.ok).toEqual([
      {
        name: 'libc6',
        version: '2.36-9+deb12u14',
        arch: 'amd64',
        filename: 'pool/main/g/glibc/libc6_2.36-9+deb12u14_amd64.deb',
        sha256: 'a'.repeat(64),
      },
      {
        name: 'tzdata',
        version: '2025b-0+deb12u1',
        arch: 'all',
        filename: 'pool/main/t/tzdata/tzdata_2025b-0+deb12u1_all.deb',
        sha256: 'b'.repeat(64),
      },
    ]);
  });

  it('rejects missing fields, bad hashes and unsafe file names, naming the line', async () => {
    const good = 'pool/main/g/glibc/libc6_1_amd64.deb';
    const texts = [
      'Package: libc6\nVersion: 1\nArchitecture: amd64\nFilename: pool/x.deb\n',
      stanza('libc6', '1', 'amd64', good, 'z'.repeat(64)),
      stanza('libc6', '1', 'amd64', 'pool/../../etc/passwd.deb'),
      stanza('libc6', '1', 'amd64', '/etc/x.deb'),
      ' continuation first\n',
      'no colon here\n',
    ];
    const results = await call<Attempt<unknown>[]>({ op: 'parsePackages', texts });
    expect(results.map((r) => r.error?.message)).toEqual([
      'Packages line 1: the paragraph has no SHA256 field',
      'Packages line 1: bad SHA256 for libc6',
      'Packages line 1: unsafe Filename "pool/../../etc/passwd.deb"',
      'Packages line 1: unsafe Filename "/etc/x.deb"',
      'Packages line 1: continuation without a field',
      'Packages line 1: not a "Field: value" line: "no colon here"',
    ]);
  });

  it('turns garbage into a clear Error, never a crash (fast-check)', async () => {
    const garbage = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc.string({
        unit: fc.constantFrom('Package: a\n', 'SHA256: ', ' x\n', '\n', ':', 'Filename: pool/a.deb\n', 'é'),
        maxLength: 40,
      }),
      fc
        .array(
          fc.constantFrom(
            'Package: libc6',
            'Version: 1',
            'Architecture: amd64',
            `SHA256: ${'c'.repeat(64)}`,
            'Filename: pool/main/a_1.deb',
            ' more',
            '',
          ),
          { maxLength: 12 },
        )
        .map((lines) => lines.join('\n')),
    );
    const texts = fc.sample(garbage, { numRuns: 300, seed: 1 });
    const results = await call<Attempt<unknown[]>[]>({ op: 'parsePackages', texts });
    results.forEach((result, index) => {
      if (result.error) {
        expect([texts[index], result.error.name]).toEqual([texts[index], 'Error']);
        expect(result.error.message).toMatch(/^Packages(:| line \d+:) /);
      } else expect(Array.isArray(result.ok)).toBe(true);
    });
  });
});

describe('InRelease parser', () => {
  const release = [
    'Origin: Debian',
    'Date: Sat, 11 Jul 2026 10:16:37 UTC',
    'Valid-Until: Fri, 27 Nov 2026 00:12:41 UTC',
    'Acquire-By-Hash: yes',
    'MD5Sum:',
    ' 0ed6d4c8891eb86358b94bb35d9e4da4  1484322 contrib/Contents-all',
    'SHA256:',
    ` ${'d'.repeat(64)}  2515915 main/binary-amd64/Packages`,
    ` ${'e'.repeat(64)}   376904 main/binary-amd64/Packages.xz`,
    '',
  ].join('\n');

  it('takes the SHA256 list, dates and by-hash support', async () => {
    const [result] = await call<Attempt<Record<string, unknown>>[]>({ op: 'parseRelease', texts: [release] });
    expect(result?.ok).toEqual({
      date: '2026-07-11T10:16:37.000Z',
      validUntil: '2026-11-27T00:12:41.000Z',
      byHash: true,
      sha256: {
        'main/binary-amd64/Packages': { sha256: 'd'.repeat(64), size: 2515915 },
        'main/binary-amd64/Packages.xz': { sha256: 'e'.repeat(64), size: 376904 },
      },
    });
  });

  it('rejects a missing or malformed SHA256 list and bad dates', async () => {
    const results = await call<Attempt<unknown>[]>({
      op: 'parseRelease',
      texts: ['Origin: Debian\n', 'SHA256:\n nothash 1 x\n', `Date: soon\nSHA256:\n ${'d'.repeat(64)} 1 x\n`],
    });
    expect(results.map((r) => r.error?.message)).toEqual([
      'Release: no SHA256 list',
      'Release: bad SHA256 line "nothash 1 x"',
      'Release: bad Date "soon"',
    ]);
  });
});

describe('fallback when a pinned .deb answers 404 (injected fetch, fake archive)', () => {
  const main = 'https://deb.debian.org/debian';
  const security = 'https://security.debian.org/debian-security';
  const pinned = {
    name: 'libc6',
    version: '2.36-9+deb12u14',
    url: 'http://deb.debian.org/debian/pool/main/g/glibc/libc6_2.36-9%2bdeb12u14_amd64.deb',
    sha256: 'a'.repeat(64),
  };
  const suites = (overrides: { tamper?: boolean } = {}) => ({
    bookworm: {
      base: main,
      packages: {
        amd64: stanza(
          'libc6',
          '2.36-9+deb12u13',
          'amd64',
          'pool/main/g/glibc/libc6_2.36-9+deb12u13_amd64.deb',
        ),
      },
    },
    'bookworm-updates': { base: main, packages: { amd64: '' } },
    'bookworm-security': {
      base: security,
      ...overrides,
      packages: {
        amd64: [
          stanza(
            'libc6',
            '2.36-9+deb12u9',
            'amd64',
            'pool/updates/main/g/glibc/libc6_2.36-9+deb12u9_amd64.deb',
          ),
          stanza(
            'libc6',
            '2.36-9+deb12u15',
            'amd64',
            'pool/updates/main/g/glibc/libc6_2.36-9+deb12u15_amd64.deb',
            'f'.repeat(64),
          ),
        ].join('\n'),
      },
    },
  });

  interface Answer {
    ok?: { version: string; url: string; sha256: string; source: string; message: string; suite?: string };
    error?: { name: string; message: string };
    warnings: string[];
    requests: string[];
  }

  it('uses the same file at the other archive when it moved there, with the pinned sha256', async () => {
    const moved =
      'http://security.debian.org/debian-security/pool/updates/main/g/glibc/libc6_2.36-9%2bdeb12u14_amd64.deb';
    const answer = await call<Answer>({
      op: 'replacement',
      locked: pinned,
      arch: 'amd64',
      suites: suites(),
      debs: { [moved]: 200 },
    });
    expect(answer.ok).toMatchObject({
      version: pinned.version,
      url: moved,
      sha256: pinned.sha256,
      source: 'moved',
    });
    expect(answer.requests).toEqual([`HEAD ${moved}`]);
  });

  it('otherwise takes the newest version from the indexes, with the index sha256 and the warning', async () => {
    const answer = await call<Answer>({ op: 'replacement', locked: pinned, arch: 'amd64', suites: suites() });
    expect(answer.ok).toMatchObject({
      version: '2.36-9+deb12u15',
      suite: 'bookworm-security',
      url: 'http://security.debian.org/debian-security/pool/updates/main/g/glibc/libc6_2.36-9%2bdeb12u15_amd64.deb',
      sha256: 'f'.repeat(64),
      source: 'index',
    });
    expect(answer.ok?.message).toBe(
      'libc6:amd64 2.36-9+deb12u14 is no longer in the Debian archive; using 2.36-9+deb12u15 from bookworm-security (index over HTTPS, signature not checked). Refresh the lock: node tools/image/lock-debs.mjs',
    );
    expect(answer.warnings).toEqual([
      expect.stringMatching(/^gpgv or .* is missing: Debian indexes are trusted on HTTPS alone/),
    ]);
  });

  it('fails on an index whose sha256 does not match InRelease', async () => {
    const answer = await call<Answer>({
      op: 'replacement',
      locked: pinned,
      arch: 'amd64',
      suites: suites({ tamper: true }),
    });
    expect(answer.error?.message).toMatch(/by-hash\/SHA256\/[0-9a-f]{64}: sha256 mismatch: InRelease says /);
  });

  it('fails when probing answers anything but 200 or 404, and refuses a downgrade', async () => {
    const moved =
      'http://security.debian.org/debian-security/pool/updates/main/g/glibc/libc6_2.36-9%2bdeb12u14_amd64.deb';
    const unavailable = await call<Answer>({
      op: 'replacement',
      locked: pinned,
      arch: 'amd64',
      suites: suites(),
      debs: { [moved]: 503 },
    });
    expect(unavailable.error?.message).toBe(`${moved}: HTTP 503`);
    const newer = { ...pinned, version: '2.36-9+deb12u20', url: pinned.url.replace('u14', 'u20') };
    const downgrade = await call<Answer>({
      op: 'replacement',
      locked: newer,
      arch: 'amd64',
      suites: suites(),
    });
    expect(downgrade.error?.message).toMatch(
      /2\.36-9\+deb12u20 is no longer in the Debian archive and the newest there, 2\.36-9\+deb12u15, is older/,
    );
  });

  it('resolves across suites to the newest version, and names a package that is nowhere', async () => {
    const found = await call<Answer>({ op: 'resolve', name: 'libc6', arch: 'amd64', suites: suites() });
    expect(found.ok).toMatchObject({ version: '2.36-9+deb12u15', suite: 'bookworm-security' });
    const missing = await call<Answer>({ op: 'resolve', name: 'libfoo1', arch: 'amd64', suites: suites() });
    expect(missing.error?.message).toBe(
      'libfoo1:amd64 is in none of bookworm, bookworm-updates, bookworm-security',
    );
  });
});

describe('the build falls back only on 404 (locked-debs.mjs)', () => {
  interface Used {
    ok?: { file: string; used: unknown[]; archiveCreated: boolean };
    error?: { message: string };
    warnings: string[];
  }
  const pinned = {
    name: 'libc6',
    version: '1.0-1',
    url: 'http://deb.debian.org/debian/pool/main/g/glibc/libc6_1.0-1_amd64.deb',
    sha256: 'a'.repeat(64),
  };

  it('asks the archive after a 404, downloads the replacement, warns and records the pin it replaced', async () => {
    const answer = await call<Used>({ op: 'lockedDebs', pinned, failure: 404 });
    expect(answer.ok).toEqual({
      file: '/cache/libc6_1.0-2_amd64.deb',
      archiveCreated: true,
      used: [
        {
          name: 'libc6',
          version: '1.0-2',
          url: 'http://deb.debian.org/debian/pool/main/g/glibc/libc6_1.0-2_amd64.deb',
          sha256: 'b'.repeat(64),
          locked: { version: '1.0-1', url: pinned.url },
        },
      ],
    });
    expect(answer.warnings).toEqual(['replacement message']);
  });

  it('never falls back on a sha256 mismatch or another HTTP status', async () => {
    for (const failure of ['sha256', 500]) {
      const answer = await call<Used>({ op: 'lockedDebs', pinned, failure });
      expect(answer.error?.message).toMatch(failure === 'sha256' ? /sha256 mismatch/ : /HTTP 500/);
    }
    const fine = await call<Used>({ op: 'lockedDebs', pinned, failure: null });
    expect(fine.ok).toMatchObject({ archiveCreated: false, used: [{ version: '1.0-1', url: pinned.url }] });
  });
});

describe('the real Debian archive', () => {
  it('has every pinned version of image-lock.json in its signed indexes (amd64 and arm64)', async () => {
    const reachable = await fetch('https://deb.debian.org/debian/dists/bookworm/InRelease', {
      method: 'HEAD',
      signal: AbortSignal.timeout(20_000),
    }).then(
      () => true,
      () => false,
    );
    if (!reachable) {
      if (process.env['CI'] !== undefined) throw new Error('deb.debian.org is unreachable from CI');
      console.warn('debian-archive.spec: deb.debian.org unreachable; the live archive test is skipped');
      return;
    }
    const lock = JSON.parse(readFileSync(join(repo, 'tools/image/image-lock.json'), 'utf8')) as {
      debian: {
        packages: Record<string, Array<{ name: string; version: string; url: string; sha256: string }>>;
      };
    };
    const arches = Object.keys(lock.debian.packages);
    expect(arches).toEqual(['amd64', 'arm64']);
    const names = ['libc6', 'libgcc-s1', 'libstdc++6', 'libudev1'];
    const answer = await call<{
      ok?: Record<string, Array<{ version: string; url: string; sha256: string }>>;
      error?: { message: string };
      warnings: string[];
    }>({
      op: 'live',
      arches,
      names,
      cacheDir: join(repo, 'dist/image-cache'),
    });
    expect(answer.error).toBeUndefined();
    expect(answer.warnings).toEqual([]);
    for (const arch of arches) {
      for (const pinned of lock.debian.packages[arch] ?? []) {
        const found = answer.ok?.[`${pinned.name}:${arch}`] ?? [];
        expect(found.map((c) => c.version)).toContain(pinned.version);
        expect(found.find((c) => c.version === pinned.version)).toMatchObject({
          url: pinned.url,
          sha256: pinned.sha256,
        });
      }
    }
  });
});
