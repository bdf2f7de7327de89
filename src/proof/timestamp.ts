/**
 * RFC 3161 time-stamps of signed checkpoints: the request sent to a time-stamping authority
 * (TSA), the token read from its answer, and the offline check of that token against trusted
 * roots. pkijs reads the ASN.1; the cryptography is node:crypto's, synchronous, so a check is a
 * plain function like every other verification here.
 *
 * @module
 * @example
 * const { der, nonce } = timestampRequest(checkpointText);
 * // ...POST der to the TSA as application/timestamp-query, read the body...
 * const token = readTimestampResponse(body);
 * if (token.ok) {
 *   const stamp = verifyTimestampToken(token.value, checkpointText, { roots, nonce });
 *   if (stamp.ok) console.log(stamp.value.genTime);
 * }
 */
import { createHash, randomBytes, verify, X509Certificate } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { type Failure, fail, ok, type Result } from './result.js';

/** The PEM certificates of a text (a roots file), each with its BEGIN and END lines. */
export function pemCertificates(text: string): string[] {
  return text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
}

/** What a valid token states, once its signature, chain and imprint have been checked. */
export interface VerifiedTimestamp {
  genTime: Date;
  /** The TSA's serial number of the token, hex. */
  serialNumber: string;
  /** The TSA policy (an OID) the token was issued under. */
  policy: string;
  /** The TSA's name as the token gives it (`CN=…, O=…` for a directory name). */
  tsaName?: string;
  nonce?: bigint;
  /** How far genTime may be from the true time, when the token says (RFC 3161 `accuracy`). */
  accuracyMs?: number;
  /** PEM of the chain built from the token's certificates: the signer first, the root last. */
  certificates: string[];
}

export interface TimestampCheckOptions {
  /** PEM certificates of the TSAs' roots: the chain must end at one of them. */
  roots: readonly string[];
  /** The nonce of the request: the token must echo it. */
  nonce?: bigint;
  /** When every certificate of the chain must be valid; genTime when not given. */
  at?: Date;
}

const OID = {
  signedData: '1.2.840.113549.1.7.2',
  tstInfo: '1.2.840.113549.1.9.16.1.4',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingCertificate: '1.2.840.113549.1.9.16.2.12',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  extKeyUsage: '2.5.29.37',
  timeStamping: '1.3.6.1.5.5.7.3.8',
  sha256: '2.16.840.1.101.3.4.2.1',
};

/** The digests accepted for imprints, the signed attributes and ESSCertIDv2; SHA-1 is not. */
const digests: Readonly<Record<string, string>> = {
  [OID.sha256]: 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
};

/**
 * Signature algorithms of SignerInfo and the digest each fixes. `rsaEncryption` takes the
 * SignerInfo's digestAlgorithm; Ed25519 hashes by itself (null). RSA-PSS is left out: no TSA
 * this service is meant for signs with it, and a token that does fails with a clear reason.
 */
const signatureDigests: Readonly<Record<string, string | null | 'signer'>> = {
  '1.2.840.113549.1.1.1': 'signer',
  '1.2.840.113549.1.1.11': 'sha256',
  '1.2.840.113549.1.1.12': 'sha384',
  '1.2.840.113549.1.1.13': 'sha512',
  '1.2.840.10045.4.3.2': 'sha256',
  '1.2.840.10045.4.3.3': 'sha384',
  '1.2.840.10045.4.3.4': 'sha512',
  '1.3.101.112': null,
};

/** The digest an AlgorithmIdentifier names, its parameters absent or NULL (RFC 5754 3). */
function digestOf({ algorithmId, algorithmParams }: pkijs.AlgorithmIdentifier) {
  const plain = algorithmParams === undefined || algorithmParams instanceof asn1js.Null;
  return plain ? digests[algorithmId] : undefined;
}

const pkiStatuses = ['granted', 'grantedWithMods', 'rejection', 'waiting', 'revocationWarning'];

/** A certificate as node:crypto verifies it and as pkijs reads its fields. */
interface Certificate {
  readonly x509: X509Certificate;
  readonly fields: pkijs.Certificate;
}

/** The parts of a token the checks need. */
interface Token {
  readonly signerInfo: pkijs.SignerInfo;
  readonly signedAttrs: pkijs.SignedAndUnsignedAttributes;
  readonly eContent: Uint8Array;
  readonly tstInfo: pkijs.TSTInfo;
  readonly certificates: readonly Certificate[];
}

/**
 * A DER TimeStampReq for SHA-256(message), with certReq set so that the token carries the TSA's
 * certificate (a verifier then needs only the roots). The nonce, random unless given, binds the
 * answer to this request.
 */
export function timestampRequest(
  message: Uint8Array,
  nonce: bigint = randomBytes(8).readBigUInt64BE(),
): { der: Uint8Array; nonce: bigint } {
  const request = new pkijs.TimeStampReq({
    version: 1,
    messageImprint: new pkijs.MessageImprint({
      // With NULL parameters, as openssl writes them (RFC 5754 allows both).
      hashAlgorithm: new pkijs.AlgorithmIdentifier({
        algorithmId: OID.sha256,
        algorithmParams: new asn1js.Null(),
      }),
      hashedMessage: new asn1js.OctetString({
        valueHex: createHash('sha256').update(message).digest(),
      }),
    }),
    nonce: asn1js.Integer.fromBigInt(nonce),
    certReq: true,
  });
  return { der: new Uint8Array(request.toSchema().toBER()), nonce };
}

/**
 * The TimeStampToken (a DER ContentInfo) of a TSA's TimeStampResp, when the TSA granted it;
 * otherwise why not, with the status and the TSA's own words.
 */
export function readTimestampResponse(der: Uint8Array): Result<Uint8Array> {
  const block = readDer(der);
  const response = block && construct(() => new pkijs.TimeStampResp({ schema: block }));
  if (!block || !response) return fail('the TSA response is not a DER TimeStampResp');
  const { status, statusStrings } = response.status;
  if (status !== 0 && status !== 1) {
    const words = statusStrings?.map((text) => text.valueBlock.value).join(' ');
    const name = pkiStatuses[status] ?? `status ${status}`;
    return fail(`the TSA did not grant the time-stamp: ${name}${words ? ` (${words})` : ''}`);
  }
  // The token's own bytes, not pkijs's re-encoding of them: they are what is stored and checked.
  const token = block instanceof asn1js.Sequence ? block.valueBlock.value[1] : undefined;
  if (!response.timeStampToken || !token) return fail('the granted TSA response has no token');
  return ok(new Uint8Array(token.valueBeforeDecodeView));
}

/**
 * Checks an RFC 3161 token over `message`: the CMS signature over the signed attributes, the
 * messageDigest of the TSTInfo, the signing-certificate attribute (ESSCertID or ESSCertIDv2),
 * the imprint (SHA-256, -384 or -512 of `message`), the nonce when given, the signer's critical
 * timeStamping usage, and a chain to one of `roots`, every certificate valid at genTime (or at
 * `options.at`). Any malformed input is a failure, never an exception.
 */
export function verifyTimestampToken(
  token: Uint8Array,
  message: Uint8Array,
  options: TimestampCheckOptions,
): Result<VerifiedTimestamp> {
  try {
    return checkToken(token, message, options);
  } catch (error) {
    // pkijs reads lazily in places (names, integers, times) and throws on what it cannot read.
    return fail(`the time-stamp token could not be read: ${(error as Error).message}`);
  }
}

function checkToken(
  bytes: Uint8Array,
  message: Uint8Array,
  options: TimestampCheckOptions,
): Result<VerifiedTimestamp> {
  const roots = readRoots(options.roots);
  if (!roots.ok) return roots;
  const token = readToken(bytes);
  if (!token.ok) return token;
  const { tstInfo, certificates } = token.value;
  const signer = findSigner(token.value.signerInfo, certificates);
  if (!signer.ok) return signer;
  const wrong =
    checkSignedAttributes(token.value) ??
    checkSigningCertificate(token.value.signedAttrs, signer.value) ??
    checkSignature(token.value, signer.value) ??
    checkImprint(tstInfo, message) ??
    checkNonce(tstInfo, options.nonce) ??
    checkTsaName(tstInfo, signer.value) ??
    checkTimeStampingUsage(signer.value);
  if (wrong) return wrong;
  const chain = buildChain(signer.value, certificates, roots.value);
  if (!chain.ok) return chain;
  const expired = checkValidity(chain.value, options.at ?? tstInfo.genTime);
  if (expired) return expired;
  return ok(statement(tstInfo, chain.value));
}

/**
 * One ASN.1 value filling the whole input, or undefined. asn1js lets a value run past the length
 * its parent states; encoding again what it read and asking for the same bytes refuses that (and
 * trailing bytes), so what is checked is what openssl and every other reader see.
 */
function readDer(der: Uint8Array): asn1js.AsnType | undefined {
  const read = construct(() => asn1js.fromBER(der));
  if (read?.offset !== der.byteLength) return undefined;
  const again = construct(() => read.result.toBER());
  return again && sameBytes(again, der) ? read.result : undefined;
}

/** A pkijs object, or undefined when the schema does not match (pkijs throws then). */
function construct<T>(make: () => T): T | undefined {
  try {
    return make();
  } catch {
    return undefined;
  }
}

function readCertificate(der: Uint8Array): Certificate | undefined {
  const block = readDer(der);
  const fields = block && construct(() => new pkijs.Certificate({ schema: block }));
  const x509 = construct(() => new X509Certificate(der));
  return fields && x509 ? { fields, x509 } : undefined;
}

function readRoots(pems: readonly string[]): Result<Certificate[]> {
  const roots: Certificate[] = [];
  for (const [i, pem] of pems.entries()) {
    const x509 = construct(() => new X509Certificate(pem));
    const root = x509 && readCertificate(new Uint8Array(x509.raw));
    if (!root) return fail(`trusted root ${i + 1} is not a PEM certificate`);
    roots.push(root);
  }
  return ok(roots);
}

function readToken(bytes: Uint8Array): Result<Token> {
  const block = readDer(bytes);
  const info = block && construct(() => new pkijs.ContentInfo({ schema: block }));
  const signed =
    info?.contentType === OID.signedData
      ? construct(() => new pkijs.SignedData({ schema: info.content }))
      : undefined;
  if (!info || !signed) return fail('the time-stamp token is not a CMS SignedData ContentInfo');
  const { eContentType, eContent } = signed.encapContentInfo;
  if (eContentType !== OID.tstInfo || !(eContent instanceof asn1js.OctetString)) {
    return fail(`the token's content is not a TSTInfo (eContentType ${eContentType})`);
  }
  const content = new Uint8Array(eContent.getValue());
  const tstBlock = readDer(content);
  const tstInfo = tstBlock && construct(() => new pkijs.TSTInfo({ schema: tstBlock }));
  if (tstInfo?.version !== 1) return fail('the token content is not a TSTInfo v1');
  const signer = readSignerInfo(signed);
  if (!signer.ok) return signer;
  const certificates = certificateBlocks(info.content).map((cert) =>
    readCertificate(new Uint8Array(cert.valueBeforeDecodeView)),
  );
  if (certificates.some((cert) => cert === undefined)) {
    return fail('a certificate in the token cannot be read');
  }
  return ok({
    ...signer.value,
    eContent: content,
    tstInfo,
    certificates: certificates as Certificate[],
  });
}

/** The one SignerInfo of a token, in the versions RFC 5652 sets for what this reader accepts. */
function readSignerInfo(signed: pkijs.SignedData) {
  const [signerInfo, ...others] = signed.signerInfos;
  // RFC 3161 2.4.2: a token has exactly one signer, the TSA.
  if (!signerInfo || others.length > 0) return fail('the token must have exactly one signer');
  // RFC 5652 5.1, 5.3: v3 for a content other than id-data; v1 for a signer named by issuer and
  // serial number (the only way this reader finds it).
  if (signed.version !== 3 || signerInfo.version !== 1) {
    return fail(`unexpected SignedData v${signed.version} or SignerInfo v${signerInfo.version}`);
  }
  // RFC 5652 5.3: with a content type other than id-data the signed attributes are mandatory.
  if (!signerInfo.signedAttrs) return fail('the token signer has no signed attributes');
  const digest = signerInfo.digestAlgorithm.algorithmId;
  const listed = signed.digestAlgorithms.filter(({ algorithmId }) => algorithmId === digest);
  if (listed.length !== 1 || !listed.every(digestOf)) {
    return fail("the signer's digest algorithm is not among the token's digestAlgorithms");
  }
  return ok({ signerInfo, signedAttrs: signerInfo.signedAttrs });
}

/**
 * The certificates as the token carries them: pkijs encodes anew what it parses, and a hash
 * (ESSCertID) must see the original bytes. Other choices than a plain certificate are skipped.
 */
function certificateBlocks(signedData: unknown): asn1js.AsnType[] {
  if (!(signedData instanceof asn1js.Sequence)) return [];
  const set = signedData.valueBlock.value.find(
    ({ idBlock }) => idBlock.tagClass === 3 && idBlock.tagNumber === 0,
  );
  const certs = set instanceof asn1js.Constructed ? set.valueBlock.value : [];
  return certs.filter((cert) => cert instanceof asn1js.Sequence);
}

function findSigner(signerInfo: pkijs.SignerInfo, certs: readonly Certificate[]) {
  const sid = signerInfo.sid;
  if (!(sid instanceof pkijs.IssuerAndSerialNumber)) {
    return fail('the token names its signer by key identifier, which is not supported');
  }
  // Byte for byte, not by X.500 name matching (which ignores case): a genuine token copies its
  // signer's issuer, and a token whose bytes were altered anywhere must not verify.
  const signer = certs.find(
    ({ fields }) =>
      sameBytes(fields.issuer.valueBeforeDecode, sid.issuer.valueBeforeDecode) &&
      fields.serialNumber.isEqual(sid.serialNumber),
  );
  return signer
    ? ok(signer)
    : fail("the signer's certificate is not in the token (was it requested with certReq?)");
}

/** The one value of the one signed attribute of `type`; several of either are refused. */
function attribute(attrs: pkijs.SignedAndUnsignedAttributes, type: string): unknown {
  const found = attrs.attributes.filter((attr) => attr.type === type);
  if (found.length === 0) return undefined;
  const [only] = found;
  return found.length === 1 && only?.values.length === 1 ? only.values[0] : null;
}

function hash(name: string, bytes: Uint8Array | ArrayBuffer): Uint8Array {
  return createHash(name).update(new Uint8Array(bytes)).digest();
}

function sameBytes(a: Uint8Array | ArrayBuffer, b: Uint8Array | ArrayBuffer): boolean {
  return Buffer.from(new Uint8Array(a)).equals(new Uint8Array(b));
}

/** RFC 5652 11.1, 11.2: contentType says TSTInfo and messageDigest is the TSTInfo's digest. */
function checkSignedAttributes({ signerInfo, signedAttrs, eContent }: Token): Failure | undefined {
  const type = attribute(signedAttrs, OID.contentType);
  if (!(type instanceof asn1js.ObjectIdentifier) || type.getValue() !== OID.tstInfo) {
    return fail('the signed contentType attribute is missing or is not id-ct-TSTInfo');
  }
  const digest = digestOf(signerInfo.digestAlgorithm);
  if (!digest) return fail(`unsupported digest ${signerInfo.digestAlgorithm.algorithmId}`);
  const stated = attribute(signedAttrs, OID.messageDigest);
  if (!(stated instanceof asn1js.OctetString)) {
    return fail('the signed messageDigest attribute is missing');
  }
  return sameBytes(stated.valueBlock.valueHexView, hash(digest, eContent))
    ? undefined
    : fail('the messageDigest attribute does not match the TSTInfo: the content was altered');
}

/**
 * RFC 3161 2.4.1 (ESSCertID, SHA-1) and RFC 5816 (ESSCertIDv2, SHA-256 unless it names
 * another): the first certificate named is the signer's, which binds the signer certificate
 * itself, not only its key, to the signature.
 */
function checkSigningCertificate(
  attrs: pkijs.SignedAndUnsignedAttributes,
  signer: Certificate,
): Failure | undefined {
  for (const [type, version] of [
    [OID.signingCertificateV2, 2],
    [OID.signingCertificate, 1],
  ] as const) {
    const value = attribute(attrs, type);
    if (value === undefined) continue;
    const certId = value === null ? undefined : firstCertId(value, version);
    if (!certId) {
      return fail(`the signing certificate attribute (ESSCertID v${version}) is malformed`);
    }
    if (!sameBytes(certId.hash, hash(certId.digest, signer.x509.raw))) {
      return fail(`the signer certificate's hash does not match its ESSCertID v${version}`);
    }
  }
  return undefined;
}

function firstCertId(value: unknown, version: 1 | 2) {
  const certs = value instanceof asn1js.Sequence ? value.valueBlock.value[0] : undefined;
  const first = certs instanceof asn1js.Sequence ? certs.valueBlock.value[0] : undefined;
  if (!(first instanceof asn1js.Sequence)) return undefined;
  const [head, next] = first.valueBlock.value;
  if (version === 1) {
    return head instanceof asn1js.OctetString
      ? { digest: 'sha1', hash: head.valueBlock.valueHexView }
      : undefined;
  }
  // hashAlgorithm is DEFAULT sha256, so absent when it is SHA-256 (DER leaves defaults out).
  const algorithm =
    head instanceof asn1js.Sequence
      ? construct(() => new pkijs.AlgorithmIdentifier({ schema: head }))
      : undefined;
  const certHash = head instanceof asn1js.Sequence ? next : head;
  const digest = head instanceof asn1js.Sequence ? algorithm && digestOf(algorithm) : 'sha256';
  return digest && certHash instanceof asn1js.OctetString
    ? { digest, hash: certHash.valueBlock.valueHexView }
    : undefined;
}

function checkSignature({ signerInfo, signedAttrs }: Token, signer: Certificate) {
  const { algorithmId, algorithmParams } = signerInfo.signatureAlgorithm;
  const fixed = signatureDigests[algorithmId];
  // RSA PKCS #1 v1.5 has NULL parameters, ECDSA and Ed25519 none (RFC 4055, 5758, 8410).
  const plain = algorithmParams === undefined || algorithmParams instanceof asn1js.Null;
  if (fixed === undefined || !plain) return fail(`unsupported signature algorithm ${algorithmId}`);
  const digest = fixed === 'signer' ? digestOf(signerInfo.digestAlgorithm) : fixed;
  if (digest === undefined) return fail('unsupported digest for the signature');
  // RFC 5652 5.4: the signature covers the attributes encoded as a SET OF, though the token
  // carries them as [0] IMPLICIT: the same bytes but for the first.
  const signed = new Uint8Array(signedAttrs.encodedValue).slice();
  signed[0] = 0x31;
  const signature = signerInfo.signature.valueBlock.valueHexView;
  const good = construct(() => verify(digest, signed, signer.x509.publicKey, signature));
  return good ? undefined : fail("bad signature: the token's signature does not verify");
}

/** The imprint must be the digest of `message` by the algorithm the token names. */
function checkImprint(tstInfo: pkijs.TSTInfo, message: Uint8Array): Failure | undefined {
  const { hashAlgorithm, hashedMessage } = tstInfo.messageImprint;
  const digest = digestOf(hashAlgorithm);
  if (!digest) return fail(`unsupported imprint digest ${hashAlgorithm.algorithmId}`);
  return sameBytes(hashedMessage.valueBlock.valueHexView, hash(digest, message))
    ? undefined
    : fail(`wrong imprint: the token does not time-stamp this message (${digest})`);
}

function checkNonce(tstInfo: pkijs.TSTInfo, nonce: bigint | undefined): Failure | undefined {
  if (nonce === undefined) return undefined;
  const echoed = tstInfo.nonce?.toBigInt();
  return echoed === nonce
    ? undefined
    : fail(`nonce mismatch: the request sent ${nonce}, the token has ${echoed ?? 'none'}`);
}

/** RFC 3161 2.4.2: a directory name given as the TSA's must be its certificate's subject. */
function checkTsaName(tstInfo: pkijs.TSTInfo, signer: Certificate): Failure | undefined {
  const name = tstInfo.tsa;
  if (name?.type !== 4 || signer.fields.subject.isEqual(name.value)) return undefined;
  return fail("the token's TSA name is not its signer certificate's subject");
}

/** RFC 3161 2.3: the one extended key usage, critical, is id-kp-timeStamping. */
function checkTimeStampingUsage(signer: Certificate): Failure | undefined {
  const usages = (signer.fields.extensions ?? []).filter((ext) => ext.extnID === OID.extKeyUsage);
  const [usage] = usages;
  const purposes =
    usage?.parsedValue instanceof pkijs.ExtKeyUsage ? usage.parsedValue.keyPurposes : [];
  if (usages.length !== 1 || !usage?.critical || purposes.join() !== OID.timeStamping) {
    return fail(
      `the signer certificate "${signer.x509.subject}" lacks the critical timeStamping extended key usage`,
    );
  }
  return undefined;
}

/** The signer, the token's certificates that lead up, and the trusted root they end at. */
function buildChain(
  signer: Certificate,
  pool: readonly Certificate[],
  roots: readonly Certificate[],
): Result<Certificate[]> {
  const chain = [signer];
  // A bound on the length, since the token's certificates are not trusted to end a loop.
  for (let current = signer; chain.length <= 8; ) {
    if (roots.some((root) => sameBytes(root.x509.raw, current.x509.raw))) return ok(chain);
    const root = roots.find((candidate) => issued(current, candidate));
    if (root) return ok([...chain, root]);
    const next = pool.find((candidate) => !chain.includes(candidate) && issued(current, candidate));
    if (!next) {
      return fail(`untrusted chain: no trusted root issued "${current.x509.issuer}"`);
    }
    chain.push(next);
    current = next;
  }
  return fail('untrusted chain: longer than 8 certificates');
}

function issued(child: Certificate, issuer: Certificate): boolean {
  return (
    issuer.x509.ca &&
    child.x509.checkIssued(issuer.x509) &&
    construct(() => child.x509.verify(issuer.x509.publicKey)) === true
  );
}

function checkValidity(chain: readonly Certificate[], at: Date): Failure | undefined {
  for (const { fields, x509 } of chain) {
    const from = fields.notBefore.value;
    const to = fields.notAfter.value;
    if (at > to) {
      return fail(
        `expired certificate "${x509.subject}": valid until ${to.toISOString()}, needed at ${at.toISOString()}`,
      );
    }
    if (at < from) {
      return fail(
        `certificate "${x509.subject}" is not yet valid at ${at.toISOString()} (from ${from.toISOString()})`,
      );
    }
  }
  return undefined;
}

/** What a token that passed every check states. */
function statement(tstInfo: pkijs.TSTInfo, chain: readonly Certificate[]): VerifiedTimestamp {
  const serial = tstInfo.serialNumber.toBigInt().toString(16);
  const { accuracy, tsa, nonce } = tstInfo;
  const tsaName = tsa && generalName(tsa);
  return {
    genTime: tstInfo.genTime,
    serialNumber: serial.length % 2 === 0 ? serial : `0${serial}`,
    policy: tstInfo.policy,
    ...(tsaName !== undefined && { tsaName }),
    ...(nonce && { nonce: nonce.toBigInt() }),
    ...(accuracy && {
      accuracyMs:
        (accuracy.seconds ?? 0) * 1000 + (accuracy.millis ?? 0) + (accuracy.micros ?? 0) / 1000,
    }),
    certificates: chain.map(({ x509 }) => x509.toString()),
  };
}

const attributeNames: Readonly<Record<string, string>> = {
  '2.5.4.3': 'CN',
  '2.5.4.6': 'C',
  '2.5.4.7': 'L',
  '2.5.4.8': 'ST',
  '2.5.4.10': 'O',
  '2.5.4.11': 'OU',
};

/** A directory name as `CN=…, O=…` in the order it is written; a URI or DNS name as is. */
function generalName(name: pkijs.GeneralName): string | undefined {
  if (typeof name.value === 'string') return name.value;
  if (!(name.value instanceof pkijs.RelativeDistinguishedNames)) return undefined;
  return name.value.typesAndValues
    .map(({ type, value }) => `${attributeNames[type] ?? type}=${value.valueBlock.value}`)
    .join(', ');
}
