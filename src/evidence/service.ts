import { zipSync } from 'fflate';
import { type Actor, recordAudit } from '../audit-trail/index.js';
import {
  awaitReady,
  leafReader,
  logProofsAtLatest,
  noOutsideProofs,
  type OutsideProofs,
  openedOnly,
} from '../decision-log/index.js';
import { partnersOfReleases } from '../partners/index.js';
import type { Db, Executor } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { sha256Hex } from '../platform/hashing.js';
import { nowIso } from '../platform/time.js';
import {
  type EvidenceManifest,
  evidencePackFormat,
  type NoteSigner,
  type PackVersion,
  packNoteText,
  packPaths,
  parseCheckpoint,
  parseNote,
  signNote,
  verifyTimestampToken,
} from '../proof/index.js';
import type { KindEvidence, KindReceipt, Registry } from '../record-kinds/index.js';
import {
  findSubjectId,
  personalReader,
  type SealedRecord,
  type SubjectVault,
} from '../subjects/index.js';
import { type ShownText, shownTexts } from '../templates/index.js';

/** A customer's evidence pack: the ZIP's bytes and the name it is downloaded under. */
export interface EvidencePack {
  fileName: string;
  bytes: Uint8Array;
  /** The customer's subject, for an audit entry (which never keeps a customer id). */
  subjectId: string;
  counts: Record<string, number>;
}

/** What building a pack needs beyond the store: the vault, the log's key, the integrator. */
export interface PackContext {
  db: Db;
  vault: SubjectVault;
  /** The kinds of record: each with an evidence part has its folder under `records/`. */
  registry: Registry;
  signer: NoteSigner;
  /** Runs an integration pass now, so that the customer's latest records are in the log. */
  kick: () => Promise<void>;
  /** Witnesses and time-stamping authorities, when configured: their proofs join the pack. */
  outside?: OutsideProofs;
}

const encoder = new TextEncoder();
const jsonFile = (value: unknown) => encoder.encode(`${JSON.stringify(value, null, 2)}\n`);

/**
 * A customer's evidence pack (docs/evidence-pack.md): every record of every kind with its
 * receipt, all proven under one checkpoint; the text of every version they were shown with the
 * partners its release listed; a manifest of every file's SHA-256, signed with the log's key.
 * `404 1004` for a customer the tenant has no record of, or whose record was erased (their
 * look-up is gone with their key); `503 1009` when their latest records are still not in the
 * log after waiting up to 5 s.
 */
export async function evidencePack(
  { db, vault, registry, signer, kick, outside = noOutsideProofs }: PackContext,
  tenantId: string,
  customerId: string,
  generatedAt: string = nowIso(),
): Promise<EvidencePack> {
  const subjectId = await findSubjectId(db, vault, tenantId, customerId);
  if (!subjectId) throw new AppError('notFound', { message: 'Customer not found.' });
  const kinds = await Promise.all(
    packedKinds(registry).map(async ({ evidence, receipt, folder }) => ({
      evidence,
      receipt,
      folder,
      records: await evidence.list(db, tenantId, subjectId),
    })),
  );
  const ids = kinds.flatMap(({ records }) => records.map((record) => record.id));
  // A record made on a published text shows its publication, as its receipt from the API does.
  const publishedOn = (leaf: string) => registry.byLeaf(leaf)?.receipt?.publishedOn?.(leaf);
  const leaves = leafReader(db, vault, registry, tenantId);
  const logged = await awaitReady(
    () => logProofsAtLatest(db, tenantId, ids, leaves, outside, publishedOn),
    kick,
    true,
  );
  if (!logged.ready) {
    throw new AppError('unavailable', {
      message: "The customer's latest records are not in the log yet.",
      headers: { 'retry-after': '1' },
    });
  }
  const opened = await openAll(
    db,
    vault,
    tenantId,
    kinds.flatMap(({ records }) => records),
  );
  const files = new Map<string, Uint8Array>();
  files.set(packPaths.checkpoint, encoder.encode(logged.checkpoint.note));
  addOutsideProofs(files, logged, outside);
  const counts: Record<string, number> = {};
  for (const { folder, records, receipt } of kinds) {
    counts[folder] = records.length;
    for (const record of records) {
      const proof = logged.proofs.get(record.id);
      if (!proof) throw new Error(`record ${record.id} has no proof although the log is ready`);
      files.set(
        `records/${folder}/${record.id}.json`,
        jsonFile(receipt.present(record, proof, opened.get(record.id))),
      );
    }
  }
  const versionIds = kinds.flatMap(({ records, evidence }) =>
    records.flatMap((record) => evidence.versionId?.(record) ?? []),
  );
  const texts = await shownTexts(db, tenantId, versionIds);
  counts.versions = texts.length;
  await addVersions(db, tenantId, texts, files);
  const origin = originOf(logged.checkpoint.note);
  const manifest: EvidenceManifest = {
    format: evidencePackFormat,
    tenant_id: tenantId,
    customer_id: customerId,
    generated_at: generatedAt,
    checkpoint: { origin, tree_size: logged.checkpoint.size },
    counts,
    files: [...files].map(([path, bytes]) => ({
      path,
      sha256: sha256Hex(Buffer.from(bytes)),
      size: bytes.length,
    })),
  };
  const manifestBytes = jsonFile(manifest);
  const signature = signNote(packNoteText(origin, sha256Hex(Buffer.from(manifestBytes))), [signer]);
  const mtime = new Date(generatedAt);
  const zip = zipSync(
    Object.fromEntries([
      [packPaths.manifest, manifestBytes],
      [packPaths.signature, encoder.encode(signature)],
      ...files,
    ]),
    { level: 6, mtime },
  );
  const stamp = generatedAt.replace(/[-:]/g, '').replace(/\.\d+/, '');
  return { fileName: `evidence-${stamp}.zip`, bytes: zip, subjectId, counts };
}

/**
 * A person's download of a customer's pack (the back-office's), recorded in the audit log by
 * the customer's subject (an audit entry never keeps a customer id) with what the pack holds.
 */
export async function downloadEvidencePack(
  context: PackContext,
  tenantId: string,
  customerId: string,
  actor: Actor,
): Promise<EvidencePack> {
  const pack = await evidencePack(context, tenantId, customerId);
  await recordAudit(context.db, {
    ...actor,
    action: 'customer.evidence_pack',
    target: pack.subjectId,
    details: pack.counts,
  });
  return pack;
}

/**
 * The kinds whose records an evidence pack holds (an evidence part, a receipt), each in the
 * folder its leaf format names.
 */
function packedKinds(registry: Registry) {
  return registry.kinds.flatMap(({ evidence, receipt, records }) => {
    const folder = records?.format.folder;
    if (!evidence || !receipt || folder === undefined) return [];
    return [
      {
        evidence: evidence as KindEvidence<SealedRecord>,
        receipt: receipt as KindReceipt<SealedRecord>,
        folder,
      },
    ];
  });
}

/** Every record's personal fields opened, in one pass (the customer's key unsealed once). */
async function openAll(
  db: Executor,
  vault: SubjectVault,
  tenantId: string,
  records: readonly SealedRecord[],
) {
  const read = await personalReader(db, vault, tenantId)(records);
  return new Map(records.map((record, i) => [record.id, openedOnly(read[i])]));
}

/** Each version's `content.html`, its uploaded file if any, and `version.json`. */
async function addVersions(
  db: Executor,
  tenantId: string,
  texts: readonly ShownText[],
  files: Map<string, Uint8Array>,
): Promise<void> {
  const partners = await partnersOfReleases(
    db,
    tenantId,
    texts.map(({ version }) => version.release_id),
  );
  for (const { version, file } of texts) {
    const folder = `versions/${version.id}`;
    files.set(`${folder}/content.html`, encoder.encode(version.content_html));
    const attached = file && {
      path: `${folder}/file.${file.media_type === 'application/pdf' ? 'pdf' : 'html'}`,
      media_type: file.media_type,
      file_name: file.file_name,
      size: Number(file.size),
      sha256: file.sha256,
    };
    if (file && attached) files.set(attached.path, Buffer.from(file.content_base64, 'base64'));
    const described: PackVersion = {
      consent_version_id: version.id,
      template_id: version.template_id,
      template_code: version.template_code,
      version: Number(version.version),
      tag: version.tag,
      locale: version.locale,
      published_at: version.published_at,
      content_sha256: version.content_sha256,
      content_file: attached ?? null,
      partners: partners.get(version.release_id) ?? [],
    };
    files.set(`${folder}/version.json`, jsonFile(described));
  }
}

/**
 * The witnesses' cosignatures on the pack's checkpoint, and the first time-stamp at or after it
 * with the consistency proof to it and the certificate chain its token builds to the roots
 * (docs/evidence-pack.md, "Witnesses and time-stamps").
 */
function addOutsideProofs(
  files: Map<string, Uint8Array>,
  logged: {
    cosigned?: string;
    timestamp?: { token: string; checkpoint: string; consistency_proof: string[] };
  },
  outside: OutsideProofs,
): void {
  if (logged.cosigned) files.set(packPaths.cosigned, encoder.encode(logged.cosigned));
  const stamp = logged.timestamp;
  if (!stamp) return;
  const token = Buffer.from(stamp.token, 'base64');
  files.set(packPaths.timestampToken, token);
  files.set(packPaths.timestampCheckpoint, encoder.encode(stamp.checkpoint));
  files.set(packPaths.timestampProof, jsonFile({ consistency_proof: stamp.consistency_proof }));
  const chain = verifyTimestampToken(token, encoder.encode(stamp.checkpoint), {
    roots: outside.tsaRoots,
  });
  // Verified when it was kept; a chain that no longer builds (the roots changed) is left out.
  if (chain.ok)
    files.set(packPaths.timestampChain, encoder.encode(chain.value.certificates.join('\n')));
}

/** The log's origin: the first line of its checkpoint. */
function originOf(note: string): string {
  const parsed = parseNote(note);
  const checkpoint = parsed.ok ? parseCheckpoint(parsed.value.text) : undefined;
  if (!checkpoint?.ok) throw new Error('the log holds a checkpoint that does not parse');
  return checkpoint.value.origin;
}
