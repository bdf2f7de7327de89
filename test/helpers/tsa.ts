/**
 * A real RFC 3161 time-stamping authority for the tests, made of the `openssl` command line
 * (OpenSSL 3): a root CA, an intermediate CA and a TSA certificate it issues with
 * `extendedKeyUsage = critical,timeStamping`, and `openssl ts -reply` behind a loopback HTTP
 * server that speaks `application/timestamp-query`. `opensslVerifyToken` is the independent
 * check of a token, `openssl ts -verify`. Every command runs with execFile (no shell), and every
 * file lives in a temporary directory that `close()` or `remove()` deletes.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { budget } from './time.js';

const run = promisify(execFile);

/** One `openssl` command in `dir`; a non-zero exit rejects with its output. */
async function openssl(dir: string, args: readonly string[]): Promise<string> {
  const { stdout, stderr } = await run('openssl', args, { cwd: dir, timeout: budget(20_000) });
  return `${stdout}${stderr}`;
}

/**
 * How the TSA answers: `ok` with a granted token, `rejection` with openssl's own refusal (the
 * `[tsa_reject]` section accepts only SHA-1 imprints), `garbage` with random bytes, `hang` never.
 */
export type TsaMode = 'ok' | 'garbage' | 'hang' | 'rejection';

export interface TestTsaOptions {
  mode?: TsaMode;
  /** A TSA certificate whose validity ended in 2021 (openssl still signs with it). */
  expired?: boolean;
  /** `ess_cert_id_alg`: sha256 gives RFC 5816 ESSCertIDv2, sha1 the RFC 3161 ESSCertID. */
  essCertIdAlg?: 'sha1' | 'sha256';
}

export interface TestTsa {
  /** Where to POST a DER TimeStampReq. */
  url: string;
  /** The root CA that issued the intermediate that issued the TSA certificate. */
  rootPem: string;
  rootFile: string;
  tsaCertPem: string;
  intermediatePem: string;
  dir: string;
  /** Requests the server has received. */
  readonly requests: number;
  /** How the next requests are answered. */
  mode: TsaMode;
  close(): Promise<void>;
}

/** The fixed settings of the TSA, which the tests compare what they read against. */
export const testTsaPolicy = '1.3.6.1.4.1.55555.1.1';
/** `accuracy = secs:1, millisecs:500, microsecs:100` */
export const testTsaAccuracyMs = 1500.1;
export const testTsaName = 'CN=Test TSA';

/** A CA made by `openssl req -x509`: its directory, certificate and key. */
export interface TestCa {
  dir: string;
  pem: string;
  file: string;
  keyFile: string;
  remove(): Promise<void>;
}

/** A new self-signed root CA (EC P-256) in a directory of its own: trusted by no one else. */
export async function makeTestCa(name = 'Untrusted Root CA'): Promise<TestCa> {
  const dir = await mkdtemp(join(tmpdir(), 'consent-ca-'));
  const ca = await makeRoot(dir, name);
  return { ...ca, dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

async function makeRoot(dir: string, name: string) {
  await openssl(dir, [
    'req',
    '-x509',
    ...ecKey('root.key'),
    '-out',
    'root.pem',
    '-subj',
    `/CN=${name}`,
    '-days',
    '3650',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  return {
    pem: await readFile(join(dir, 'root.pem'), 'utf8'),
    file: join(dir, 'root.pem'),
    keyFile: join(dir, 'root.key'),
  };
}

function ecKey(keyFile: string): string[] {
  return ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', keyFile];
}

// `openssl ca` rather than `openssl x509 -req`: OpenSSL 3.0's x509 has no -not_before, and the
// expired TSA certificate needs a start date in the past (`-startdate`/`-enddate`).
const caConfig = `[ ca ]
default_ca = issuing
[ issuing ]
dir = .
database = index.txt
new_certs_dir = .
serial = ca-serial
default_md = sha256
policy = any_name
unique_subject = no
copy_extensions = none
[ any_name ]
commonName = supplied
[ intermediate_ext ]
basicConstraints = critical,CA:TRUE,pathlen:0
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
[ tsa_ext ]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = critical,timeStamping
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
`;

function tsaConfig(essCertIdAlg: string): string {
  const signer = `serial = tsa-serial
crypto_device = builtin
signer_cert = tsa.pem
signer_key = tsa.key
certs = intermediate.pem
signer_digest = sha256
default_policy = ${testTsaPolicy}
other_policies = 1.3.6.1.4.1.55555.1.2
accuracy = secs:1, millisecs:500, microsecs:100
clock_precision_digits = 0
ordering = no
tsa_name = yes
ess_cert_id_chain = no
ess_cert_id_alg = ${essCertIdAlg}
`;
  return `[ tsa ]
default_tsa = tsa_ok
[ tsa_ok ]
${signer}digests = sha256, sha384, sha512
[ tsa_reject ]
${signer}digests = sha1
`;
}

/** `openssl ca` in `dir`, issuing `csr` with `extensions` of caConfig. */
async function issue(dir: string, issuer: string, csr: string, out: string, extra: string[]) {
  await openssl(dir, [
    'ca',
    '-config',
    'ca.cnf',
    '-batch',
    '-notext',
    '-cert',
    `${issuer}.pem`,
    '-keyfile',
    `${issuer}.key`,
    '-in',
    csr,
    '-out',
    out,
    ...extra,
  ]);
}

/** Root (EC), intermediate (EC) and TSA (RSA 2048) keys and certificates in `dir`. */
async function makePki(dir: string, expired: boolean) {
  const root = await makeRoot(dir, 'Test Root CA');
  await writeFile(join(dir, 'ca.cnf'), caConfig);
  await writeFile(join(dir, 'index.txt'), '');
  await writeFile(join(dir, 'ca-serial'), '1000\n');
  await openssl(dir, [
    'req',
    '-new',
    ...ecKey('intermediate.key'),
    '-out',
    'intermediate.csr',
    '-subj',
    '/CN=Test Intermediate CA',
  ]);
  await issue(dir, 'root', 'intermediate.csr', 'intermediate.pem', [
    '-extensions',
    'intermediate_ext',
    '-days',
    '3650',
  ]);
  await openssl(dir, [
    'req',
    '-new',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'tsa.key',
    '-out',
    'tsa.csr',
    '-subj',
    `/${testTsaName}`,
  ]);
  const validity = expired
    ? ['-startdate', '20200101000000Z', '-enddate', '20210101000000Z']
    : ['-days', '365'];
  await issue(dir, 'intermediate', 'tsa.csr', 'tsa.pem', ['-extensions', 'tsa_ext', ...validity]);
  return root;
}

/** Starts a TSA on 127.0.0.1 (a fresh PKI each time: a few hundred milliseconds of openssl). */
export async function startTestTsa(options: TestTsaOptions = {}): Promise<TestTsa> {
  const dir = await mkdtemp(join(tmpdir(), 'consent-tsa-'));
  const root = await makePki(dir, options.expired === true);
  await writeFile(join(dir, 'tsa.cnf'), tsaConfig(options.essCertIdAlg ?? 'sha256'));
  await writeFile(join(dir, 'tsa-serial'), '01\n');

  let requests = 0;
  const held: ServerResponse[] = [];
  // openssl ts -reply rewrites the serial file: one reply at a time.
  let queue: Promise<unknown> = Promise.resolve();
  const reply = (query: Buffer, section: string) => {
    const next = queue.then(() => opensslReply(dir, query, section));
    queue = next.catch(() => undefined);
    return next;
  };

  const tsa: TestTsa = {
    url: '',
    rootPem: root.pem,
    rootFile: root.file,
    tsaCertPem: await readFile(join(dir, 'tsa.pem'), 'utf8'),
    intermediatePem: await readFile(join(dir, 'intermediate.pem'), 'utf8'),
    dir,
    get requests() {
      return requests;
    },
    mode: options.mode ?? 'ok',
    close: async () => {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await queue;
      await rm(dir, { recursive: true, force: true });
    },
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests += 1;
      if (req.method !== 'POST' || req.headers['content-type'] !== 'application/timestamp-query') {
        res.writeHead(415, { 'content-type': 'text/plain' }).end('application/timestamp-query');
        return;
      }
      const mode = tsa.mode;
      if (mode === 'hang') {
        held.push(res);
        return;
      }
      const answer =
        mode === 'garbage'
          ? Promise.resolve(Buffer.from('<html>502 Bad Gateway</html>'))
          : reply(Buffer.concat(chunks), mode === 'rejection' ? 'tsa_reject' : 'tsa_ok');
      answer.then(
        (body) => res.writeHead(200, { 'content-type': 'application/timestamp-reply' }).end(body),
        (error: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error)),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  tsa.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/tsa`;
  return tsa;
}

let replies = 0;

async function opensslReply(dir: string, query: Buffer, section: string): Promise<Buffer> {
  const name = `query-${++replies}`;
  await writeFile(join(dir, `${name}.tsq`), query);
  await openssl(dir, [
    'ts',
    '-reply',
    '-config',
    'tsa.cnf',
    '-section',
    section,
    '-queryfile',
    `${name}.tsq`,
    '-out',
    `${name}.tsr`,
  ]);
  return readFile(join(dir, `${name}.tsr`));
}

/** POSTs a DER TimeStampReq to a TSA and answers the DER TimeStampResp. */
export async function requestTimestamp(url: string, query: Uint8Array): Promise<Uint8Array> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/timestamp-query' },
    body: query,
    signal: AbortSignal.timeout(budget(10_000)),
  });
  if (!response.ok) throw new Error(`TSA answered ${response.status}: ${await response.text()}`);
  return new Uint8Array(await response.arrayBuffer());
}

/**
 * `openssl ts -verify` of a token (a DER ContentInfo) over `message`, trusting `rootFile`:
 * openssl takes the intermediate and the TSA certificate from the token itself.
 */
export async function opensslVerifyToken(
  tokenDer: Uint8Array,
  message: Uint8Array,
  rootFile: string,
): Promise<{ ok: boolean; output: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'consent-tsverify-'));
  try {
    await writeFile(join(dir, 'token.der'), tokenDer);
    await writeFile(join(dir, 'message'), message);
    const args = ['ts', '-verify', '-token_in', '-in', 'token.der', '-data', 'message'];
    const output = await openssl(dir, [...args, '-CAfile', rootFile]);
    return { ok: /Verification: OK/.test(output), output };
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    return { ok: false, output: `${stdout}${stderr}` };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `openssl ts -query -data <message> -sha256 -cert` (with a random nonce) and its `-text`. */
export async function opensslQuery(
  message: Uint8Array,
  digest: 'sha256' | 'sha384' | 'sha512' = 'sha256',
): Promise<{ der: Uint8Array; text: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'consent-tsquery-'));
  try {
    await writeFile(join(dir, 'message'), message);
    await openssl(dir, [
      'ts',
      '-query',
      '-data',
      'message',
      `-${digest}`,
      '-cert',
      '-out',
      'q.tsq',
    ]);
    const text = await openssl(dir, ['ts', '-query', '-in', 'q.tsq', '-text']);
    return { der: new Uint8Array(await readFile(join(dir, 'q.tsq'))), text };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `openssl ts -query -in <der> -text`: how openssl reads a TimeStampReq. */
export async function opensslQueryText(der: Uint8Array): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'consent-tsquery-'));
  try {
    await writeFile(join(dir, 'q.tsq'), der);
    return await openssl(dir, ['ts', '-query', '-in', 'q.tsq', '-text']);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * How openssl reads a TimeStampResp: `openssl ts -reply -in <der> -text`, and the token it
 * takes out of it (`-token_out`; absent when the response has none).
 */
export async function opensslReadResponse(
  der: Uint8Array,
): Promise<{ text: string; token: Uint8Array | undefined }> {
  const dir = await mkdtemp(join(tmpdir(), 'consent-tsreply-'));
  try {
    await writeFile(join(dir, 'r.tsr'), der);
    const text = await openssl(dir, ['ts', '-reply', '-in', 'r.tsr', '-text']);
    const token = await openssl(dir, [
      'ts',
      '-reply',
      '-in',
      'r.tsr',
      '-token_out',
      '-out',
      't.der',
    ])
      .then(() => readFile(join(dir, 't.der')))
      .then((bytes) => new Uint8Array(bytes))
      .catch(() => undefined);
    return { text, token };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
