import { type Static, Type } from 'typebox';

const Base64Hash = Type.String({ description: 'SHA-256, base64', pattern: '^[A-Za-z0-9+/]{43}=$' });

export const LogKey = Type.Object({
  key_name: Type.String(),
  verifier_key: Type.String({ description: 'C2SP signed-note verifier key (Ed25519)' }),
  origin: Type.String({ description: "The checkpoint origin line of this tenant's log" }),
});
export type LogKey = Static<typeof LogKey>;

export const LogCheckpoint = Type.Object({
  origin: Type.String(),
  size: Type.Integer({ minimum: 0 }),
  root_hash: Base64Hash,
  checkpoint: Type.String({ description: 'C2SP tlog-checkpoint signed note, verbatim' }),
  cosigned_checkpoint: Type.Optional(
    Type.String({
      description:
        'With witnesses configured (docs/witnesses.md): the newest checkpoint a quorum of them ' +
        "cosigned, with their cosignature lines after the log's signature; it may be smaller " +
        'than `size` while the newest waits for them. Absent before the first.',
    }),
  ),
});
export type LogCheckpoint = Static<typeof LogCheckpoint>;

export const ConsistencyProof = Type.Object({
  from: Type.Integer({ minimum: 1 }),
  to: Type.Integer({ minimum: 1 }),
  proof: Type.Array(Base64Hash),
});
export type ConsistencyProof = Static<typeof ConsistencyProof>;
