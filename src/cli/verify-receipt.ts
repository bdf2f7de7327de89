import { existsSync, readFileSync } from 'node:fs';
import {
  type CosignerVerifier,
  type LeafFormat,
  type PackVerdict,
  type PublishedText,
  parseCosignerVerifierKey,
  parseVerifierKey,
  pemCertificates,
  type StatedRecord,
  type VerifiedReceipt,
  verifyEvidencePackArchive,
  verifyReceipt,
} from '../proof/index.js';

/**
 * What `verify-receipt` prints: the verdict, and on success what the log proves, by the kind of
 * record its leaf is (a decision, a website visitor's cookie decision, a customer's channel
 * change or partner block).
 */
export type ReceiptVerdict =
  | {
      valid: true;
      kind: string;
      origin: string;
      tree_size: number;
      leaf_index: number;
      opened: boolean;
      record: StatedRecord;
      /** With `--witness`: the witnesses whose cosignature verified, and the time each states. */
      witnesses?: { name: string; cosigned_at: string }[];
      /** With `--tsa-ca`: the RFC 3161 time of the time-stamped checkpoint that includes it. */
      timestamped_at?: string;
      /**
       * With a quorum or `--tsa-ca`: the time by which the record is proven to exist, the
       * earlier of the time-stamp's and the time the quorum of witnesses had cosigned.
       */
      exists_by?: string;
      /**
       * For a record made on a published text, when the receipt shows its publication: the
       * publication's leaf, proven before the record's in the same log, and the text of it
       * whose SHA-256 the record's leaf commits to.
       */
      published?: PublishedLink;
    }
  | { valid: false; reason: string };

/** The publication a record was made on, as `verify-receipt` prints it. */
export interface PublishedLink {
  publication_id: string;
  leaf_index: number;
  published_at: string;
  effective_at: string;
  what: 'template' | 'configuration';
  /** The template's id, or the configuration's. */
  of: string;
  version: number;
  text: { locale: string; id: string; sha256: string };
}

/** The witnesses `verify-receipt` trusts (`--witness`, repeated) and how many must cosign. */
export interface WitnessOptions {
  keys: readonly string[];
  quorum: number | undefined;
  /** `--tsa-ca`: a PEM file of the time-stamping authorities' roots. */
  tsaCaFile?: string | undefined;
}

/**
 * Checks a receipt file offline (the receipt JSON as the API answers it, or its tlog-proof
 * text) against a verifier key given as text or as a file holding it, and the kinds' leaf
 * formats. Needs no store and no network.
 */
export function verifyReceiptFile(
  file: string,
  key: string,
  formats: readonly LeafFormat[],
  origin?: string,
  witnessOptions: WitnessOptions = { keys: [], quorum: undefined },
): ReceiptVerdict {
  const keyText = (existsSync(key) ? readFileSync(key, 'utf8') : key).trim();
  const verifier = parseVerifierKey(keyText);
  if (!verifier.ok) throw new Error(`--key is not a verifier key: ${verifier.reason}`);
  const policy = outsidePolicy(witnessOptions);
  const { witnesses, quorum } = policy;
  const text = readFileSync(file, 'utf8');
  let input: Parameters<typeof verifyReceipt>[0] = text;
  if (text.trimStart().startsWith('{')) {
    try {
      input = JSON.parse(text) as typeof input;
    } catch {
      return { valid: false, reason: 'the file is neither receipt JSON nor tlog-proof text' };
    }
  }
  const result = verifyReceipt(input, [verifier.value], formats, {
    ...(origin === undefined ? {} : { origin }),
    ...policy,
  });
  if (!result.ok) return { valid: false, reason: result.reason };
  const { checkpoint } = result.value;
  const cosigned = [...result.value.witnesses].sort((a, b) => a.time - b.time);
  const quorumAt = quorum > 0 ? cosigned[quorum - 1]?.time : undefined;
  const stampedAt = result.value.timestamp?.genTime;
  const times = [
    ...(quorumAt === undefined ? [] : [quorumAt * 1000]),
    ...(stampedAt ? [stampedAt.getTime()] : []),
  ];
  return {
    valid: true,
    kind: result.value.kind,
    origin: checkpoint.origin,
    tree_size: checkpoint.size,
    leaf_index: result.value.leafIndex,
    opened: result.value.opened,
    record: result.value.record,
    ...(witnesses.length > 0
      ? {
          witnesses: cosigned.map((w) => ({
            name: w.name,
            cosigned_at: new Date(w.time * 1000).toISOString(),
          })),
        }
      : {}),
    ...(stampedAt ? { timestamped_at: stampedAt.toISOString() } : {}),
    ...(times.length > 0 ? { exists_by: new Date(Math.min(...times)).toISOString() } : {}),
    ...(result.value.publication ? { published: linkOf(result.value) } : {}),
  };
}

/** The verified publication of a receipt, and its text the record commits to. */
function linkOf({ publication, format, leaf }: VerifiedReceipt): PublishedLink | undefined {
  if (!publication) return undefined;
  const p = publication.leaf;
  const sha256 = format.publishedOn?.(leaf)?.sha256;
  const text = p.texts.find((t) => t.sha256 === sha256) ?? (p.texts[0] as PublishedText);
  return {
    publication_id: p.recordId,
    leaf_index: publication.leafIndex,
    published_at: p.time,
    effective_at: p.effective,
    what: p.what,
    of: p.of,
    version: p.version,
    text: { locale: text.locale, id: text.id, sha256: text.sha256 },
  };
}

/** The PEM certificates of a `--tsa-ca` file. */
function readRoots(file: string): string[] {
  const roots = pemCertificates(readFileSync(file, 'utf8'));
  if (roots.length === 0) throw new Error(`--tsa-ca ${file} holds no PEM certificate`);
  return roots;
}

/** `--witness` keys, each given as text or as a file holding it. */
function witnessVerifiers(keys: readonly string[]): CosignerVerifier[] {
  return keys.map((key) => {
    const text = (existsSync(key) ? readFileSync(key, 'utf8') : key).trim();
    const verifier = parseCosignerVerifierKey(text);
    if (!verifier.ok) throw new Error(`--witness ${key} is not a witness key: ${verifier.reason}`);
    return verifier.value;
  });
}

/**
 * Checks a customer's evidence pack offline (the ZIP as the API or the back-office hands it
 * out) against a verifier key: the manifest's signature and every file's SHA-256, every receipt
 * under the pack's checkpoint, every text a decision was shown (docs/evidence-pack.md).
 */
export function verifyPackFile(
  file: string,
  key: string,
  formats: readonly LeafFormat[],
  witnessOptions: WitnessOptions = { keys: [], quorum: undefined },
): PackVerdict {
  const keyText = (existsSync(key) ? readFileSync(key, 'utf8') : key).trim();
  const verifier = parseVerifierKey(keyText);
  if (!verifier.ok) throw new Error(`--key is not a verifier key: ${verifier.reason}`);
  return verifyEvidencePackArchive(
    readFileSync(file),
    file,
    [verifier.value],
    formats,
    outsidePolicy(witnessOptions),
  );
}

/** The witnesses, quorum and roots `--witness`, `--quorum` and `--tsa-ca` name. */
function outsidePolicy(options: WitnessOptions) {
  const witnesses = witnessVerifiers(options.keys);
  const quorum = options.quorum ?? witnesses.length;
  if (quorum > witnesses.length) {
    throw new Error(`--quorum ${quorum} is more than the ${witnesses.length} --witness given`);
  }
  const tsaRoots = options.tsaCaFile ? readRoots(options.tsaCaFile) : undefined;
  return { witnesses, quorum, ...(tsaRoots ? { tsaRoots } : {}) };
}
