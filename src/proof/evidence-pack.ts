import { createHash } from 'node:crypto';
import { openCheckpoint } from './checkpoint.js';
import type { LeafFormat } from './leaf-format.js';
import { openNote } from './note.js';
import type { NoteVerifier } from './note-keys.js';
import { checkCosigned, checkTimestamp, type OutsidePolicy } from './outside.js';
import { verifyReceipt } from './receipt.js';
import { readZipStrictly } from './zip-archive.js';

/**
 * A customer's evidence pack (docs/evidence-pack.md): the files of a ZIP, each listed with its
 * SHA-256 in `manifest.json`, the manifest's own SHA-256 in `manifest.sig`, a signed note by the
 * log's key. Every receipt under `records/` proves its leaf under the one `checkpoint.txt`; every
 * decision's leaf commits to the SHA-256 of `versions/<consent_version_id>/content.html`.
 */
export const evidencePackFormat = 'consent-service/evidence-pack/v1';

export const packPaths = {
  manifest: 'manifest.json',
  signature: 'manifest.sig',
  checkpoint: 'checkpoint.txt',
  /** With witnesses: `checkpoint.txt` with their cosignature lines. */
  cosigned: 'checkpoint-cosigned.txt',
  /** With time-stamping authorities: the first time-stamp at or after `checkpoint.txt`. */
  timestampToken: 'timestamp/token.tst',
  timestampCheckpoint: 'timestamp/checkpoint.txt',
  timestampProof: 'timestamp/proof.json',
  timestampChain: 'timestamp/chain.pem',
} as const;

/** A file of the pack as the manifest lists it. */
export interface PackFile {
  path: string;
  /** Hex SHA-256 of the file's bytes. */
  sha256: string;
  size: number;
}

export interface EvidenceManifest {
  format: typeof evidencePackFormat;
  tenant_id: string;
  customer_id: string;
  generated_at: string;
  /** The checkpoint every receipt of the pack proves its leaf under. */
  checkpoint: { origin: string; tree_size: number };
  /** Records per kind (the folder under `records/`), and the version texts. */
  counts: Record<string, number>;
  files: PackFile[];
}

/** A version text's description (`versions/<id>/version.json`). */
export interface PackVersion {
  consent_version_id: string;
  template_id: string;
  template_code: string;
  version: number;
  tag: string;
  locale: string;
  published_at: string | null;
  /** Hex SHA-256 of `content.html`: what a decision's leaf commits to. */
  content_sha256: string;
  content_file: null | {
    path: string;
    media_type: string;
    file_name: string;
    size: number;
    sha256: string;
  };
  partners: { code: string; name: string }[];
}

export const sha256Hex = (bytes: Uint8Array | string) =>
  createHash('sha256').update(bytes).digest('hex');

/** The text `manifest.sig` signs: the format, the log's origin and the manifest's SHA-256. */
export function packNoteText(origin: string, manifestSha256: string): string {
  return `${evidencePackFormat}\n${origin}\nmanifest sha256:${manifestSha256}\n`;
}

/** What a check of a pack found wrong, naming the file. */
export interface PackFailure {
  file: string;
  reason: string;
}

export interface PackVerdict {
  valid: boolean;
  failures: PackFailure[];
  origin?: string;
  tree_size?: number;
  customer_id?: string;
  /** Receipts verified per kind, and version texts checked. */
  verified: Record<string, number>;
  /** With witnesses given: those whose cosignature on the pack's checkpoint verified. */
  witnesses?: { name: string; cosigned_at: string }[];
  /** With roots given: the time of the pack's time-stamp. */
  timestamped_at?: string;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

function text(bytes: Uint8Array): string | undefined {
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}

function parseJson<T>(bytes: Uint8Array | undefined): T | undefined {
  const body = bytes && text(bytes);
  if (body === undefined) return undefined;
  try {
    return JSON.parse(body) as T;
  } catch {
    return undefined;
  }
}

/**
 * Checks a whole pack offline with nothing but the log's verifier key: the manifest's signature,
 * every file against the manifest (and no file it does not list), the checkpoint, every receipt
 * (its own proof, and that it leads to the pack's checkpoint), and every decision's text (the
 * SHA-256 its leaf commits to is that of the version's `content.html`). Names the file of every
 * failure found.
 */
export function verifyEvidencePack(
  files: ReadonlyMap<string, Uint8Array>,
  verifiers: readonly NoteVerifier[],
  formats: readonly LeafFormat[],
  policy: OutsidePolicy = {},
): PackVerdict {
  const failures: PackFailure[] = [];
  const verified: Record<string, number> = {};
  const verdict = (extra: Partial<PackVerdict> = {}): PackVerdict => ({
    valid: failures.length === 0,
    failures,
    verified,
    ...extra,
  });
  const manifestBytes = files.get(packPaths.manifest);
  const signature = files.get(packPaths.signature);
  if (!manifestBytes || !signature) {
    const missing = manifestBytes ? packPaths.signature : packPaths.manifest;
    failures.push({ file: missing, reason: 'missing from the pack' });
    return verdict();
  }
  const note = openNote(signature, verifiers);
  if (!note.ok || note.value.verified.length === 0) {
    failures.push({
      file: packPaths.signature,
      reason: note.ok ? 'not signed by the given key' : note.reason,
    });
    return verdict();
  }
  const [format, origin, digest] = note.value.text.split('\n');
  if (format !== evidencePackFormat || origin === undefined) {
    failures.push({ file: packPaths.signature, reason: `not a ${evidencePackFormat} note` });
    return verdict();
  }
  if (digest !== `manifest sha256:${sha256Hex(manifestBytes)}`) {
    failures.push({ file: packPaths.manifest, reason: 'its SHA-256 is not the one signed' });
    return verdict();
  }
  const manifest = parseJson<EvidenceManifest>(manifestBytes);
  if (manifest?.format !== evidencePackFormat || !Array.isArray(manifest.files)) {
    failures.push({ file: packPaths.manifest, reason: 'not an evidence pack manifest' });
    return verdict();
  }
  checkFiles(files, manifest, failures);
  const checkpoint = checkCheckpoint(files, origin, manifest, verifiers, failures);
  const outside = checkpoint
    ? checkOutside(files, checkpoint, origin, verifiers, policy, failures)
    : {};
  const shown = checkReceipts(
    files,
    verifiers,
    formats,
    { checkpoint, customerId: manifest.customer_id },
    verified,
    failures,
  );
  checkVersions(files, shown, verified, failures);
  const counted = Object.entries(manifest.counts ?? {}).filter(
    ([kind, count]) => kind !== 'versions' && (verified[kind] ?? 0) !== count,
  );
  for (const [kind, count] of counted) {
    failures.push({
      file: packPaths.manifest,
      reason: `counts ${count} ${kind}, the pack proves ${verified[kind] ?? 0}`,
    });
  }
  return verdict({
    origin,
    tree_size: manifest.checkpoint?.tree_size,
    customer_id: manifest.customer_id,
    ...outside,
  });
}

/**
 * The witnesses' cosignatures on the pack's checkpoint (`checkpoint-cosigned.txt`) and its
 * time-stamp (`timestamp/`), checked as a receipt's are: each when the pack has it, and each
 * required when the policy asks for witnesses or gives roots.
 */
function checkOutside(
  files: ReadonlyMap<string, Uint8Array>,
  checkpointText: string,
  origin: string,
  verifiers: readonly NoteVerifier[],
  policy: OutsidePolicy,
  failures: PackFailure[],
): Pick<PackVerdict, 'witnesses' | 'timestamped_at'> {
  const opened = openCheckpoint(checkpointText, verifiers, { origin });
  if (!opened.ok) return {};
  const found: Pick<PackVerdict, 'witnesses' | 'timestamped_at'> = {};
  const cosignedBytes = files.get(packPaths.cosigned);
  const cosigned = checkCosigned(cosignedBytes && text(cosignedBytes), opened.value, verifiers, {
    ...policy,
    origin,
  });
  if (!cosigned.ok) failures.push({ file: packPaths.cosigned, reason: cosigned.reason });
  else if (policy.witnesses?.length) {
    found.witnesses = cosigned.value.map((w) => ({
      name: w.name,
      cosigned_at: new Date(w.time * 1000).toISOString(),
    }));
  }
  const token = files.get(packPaths.timestampToken);
  const stampedNote = files.get(packPaths.timestampCheckpoint);
  const proof = parseJson<{ consistency_proof?: unknown }>(files.get(packPaths.timestampProof));
  const stamp =
    token === undefined
      ? undefined
      : {
          token: Buffer.from(token).toString('base64'),
          checkpoint: stampedNote && text(stampedNote),
          consistency_proof: proof?.consistency_proof,
        };
  const stamped = checkTimestamp(stamp, opened.value.checkpoint, verifiers, policy);
  if (!stamped.ok) failures.push({ file: packPaths.timestampToken, reason: stamped.reason });
  else if (stamped.value) found.timestamped_at = stamped.value.genTime.toISOString();
  return found;
}

/** Every listed file present with its SHA-256 and size, and no file the manifest leaves out. */
function checkFiles(
  files: ReadonlyMap<string, Uint8Array>,
  manifest: EvidenceManifest,
  failures: PackFailure[],
): void {
  const listed = new Set<string>();
  for (const entry of manifest.files) {
    listed.add(entry.path);
    const bytes = files.get(entry.path);
    if (!bytes) failures.push({ file: entry.path, reason: 'listed in the manifest, missing' });
    else if (sha256Hex(bytes) !== entry.sha256 || bytes.length !== entry.size) {
      failures.push({ file: entry.path, reason: 'its SHA-256 is not the one in the manifest' });
    }
  }
  for (const path of files.keys()) {
    if (path !== packPaths.manifest && path !== packPaths.signature && !listed.has(path)) {
      failures.push({ file: path, reason: 'not listed in the manifest' });
    }
  }
}

/**
 * Checks a pack as its ZIP archive: read strictly (`zip-archive.ts`: every byte in one entry the
 * directory lists, the two headers of each entry agreeing, every name a plain path given once),
 * then its files as `verifyEvidencePack` does. A pack the reader refuses is not valid, whatever
 * its files prove; each refusal is named, by entry where it has one, else by `archive`.
 */
export function verifyEvidencePackArchive(
  zip: Uint8Array,
  archive: string,
  verifiers: readonly NoteVerifier[],
  formats: readonly LeafFormat[],
  policy: OutsidePolicy = {},
): PackVerdict {
  const { files, problems } = readZipStrictly(zip);
  const refused = problems.map(({ entry, reason }) => ({ file: entry ?? archive, reason }));
  if (files.size === 0) return { valid: false, failures: refused, verified: {} };
  const verdict = verifyEvidencePack(files, verifiers, formats, policy);
  const failures = [...refused, ...verdict.failures];
  return { ...verdict, valid: failures.length === 0, failures };
}

/** The pack's checkpoint, signed by the key, of the signed origin and the manifest's size. */
function checkCheckpoint(
  files: ReadonlyMap<string, Uint8Array>,
  origin: string,
  manifest: EvidenceManifest,
  verifiers: readonly NoteVerifier[],
  failures: PackFailure[],
): string | undefined {
  const bytes = files.get(packPaths.checkpoint);
  const opened = bytes ? openCheckpoint(bytes, verifiers, { origin }) : undefined;
  if (!opened?.ok) {
    const reason = opened ? opened.reason : 'missing from the pack';
    failures.push({ file: packPaths.checkpoint, reason });
    return undefined;
  }
  if (opened.value.checkpoint.size !== manifest.checkpoint?.tree_size) {
    failures.push({ file: packPaths.checkpoint, reason: 'not of the size the manifest states' });
  }
  return text(bytes as Uint8Array);
}

/**
 * Every receipt under `records/`, each verified as a single receipt is, and under the pack's
 * checkpoint; answers the content SHA-256 each leaf made on a text (a decision's) commits to,
 * by version id.
 */
function checkReceipts(
  files: ReadonlyMap<string, Uint8Array>,
  verifiers: readonly NoteVerifier[],
  formats: readonly LeafFormat[],
  pack: { checkpoint: string | undefined; customerId: string },
  verified: Record<string, number>,
  failures: PackFailure[],
): Map<string, { sha256: string; file: string }[]> {
  const { checkpoint } = pack;
  const shown = new Map<string, { sha256: string; file: string }[]>();
  for (const [path, bytes] of files) {
    const folder = /^records\/([^/]+)\/[^/]+\.json$/.exec(path)?.[1];
    if (folder === undefined) continue;
    const receipt = parseJson<Parameters<typeof verifyReceipt>[0] & { checkpoint?: string }>(bytes);
    if (!receipt) {
      failures.push({ file: path, reason: 'not receipt JSON' });
      continue;
    }
    const result = verifyReceipt(receipt, verifiers, formats);
    if (!result.ok) {
      failures.push({ file: path, reason: result.reason });
      continue;
    }
    // Each folder holds the leaves of the format that names it; a folder none names, any.
    const expected = formats.find((format) => format.folder === folder)?.kind;
    if (expected !== undefined && result.value.kind !== expected) {
      failures.push({
        file: path,
        reason: `holds a ${result.value.kind}'s leaf, not a ${expected}'s`,
      });
      continue;
    }
    if (checkpoint === undefined || receipt.checkpoint !== checkpoint) {
      failures.push({ file: path, reason: "its proof does not lead to the pack's checkpoint" });
      continue;
    }
    const ofCustomer = result.value.format.ofCustomer;
    if (ofCustomer && !ofCustomer(receipt as Record<string, unknown>, pack.customerId)) {
      failures.push({ file: path, reason: "its opening does not name the pack's customer" });
      continue;
    }
    verified[folder] = (verified[folder] ?? 0) + 1;
    const text = result.value.format.shown?.(receipt as Record<string, unknown>, result.value.leaf);
    if (text) {
      const list = shown.get(text.versionId) ?? [];
      list.push({ sha256: text.sha256, file: path });
      shown.set(text.versionId, list);
    }
  }
  return shown;
}

/** Each version text a decision was shown: present, hashing to what every such leaf commits to. */
function checkVersions(
  files: ReadonlyMap<string, Uint8Array>,
  shown: Map<string, { sha256: string; file: string }[]>,
  verified: Record<string, number>,
  failures: PackFailure[],
): void {
  for (const [versionId, records] of shown) {
    const path = `versions/${versionId}/content.html`;
    const bytes = files.get(path);
    if (!bytes) {
      failures.push({ file: path, reason: `missing, the text ${records[0]?.file} was shown` });
      continue;
    }
    const digest = sha256Hex(bytes);
    const wrong = records.filter((record) => record.sha256 !== digest);
    for (const record of wrong) {
      failures.push({
        file: path,
        reason: `its SHA-256 is not the one ${record.file}'s leaf commits to`,
      });
    }
    const described = parseJson<PackVersion>(files.get(`versions/${versionId}/version.json`));
    if (described?.content_sha256 !== digest) {
      failures.push({
        file: `versions/${versionId}/version.json`,
        reason: "missing, or its content_sha256 is not content.html's",
      });
    }
    const attached = described?.content_file;
    if (attached) {
      const file = files.get(attached.path);
      if (!file || sha256Hex(file) !== attached.sha256) {
        failures.push({
          file: attached.path,
          reason: 'its SHA-256 is not the one version.json states',
        });
      }
    }
    if (wrong.length === 0) verified.versions = (verified.versions ?? 0) + 1;
  }
}
