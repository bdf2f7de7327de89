import type { Executor } from '../platform/db.js';
import { addDaysIso } from '../platform/time.js';
import type { ActorRole } from '../proof/index.js';
import { findIdempotencyRecords, replayOf, type StoredAnswer } from '../record-kinds/index.js';
import type { SubjectVault } from '../subjects/index.js';
import type { Side } from '../templates/index.js';
import type { DecisionAnswer } from './answer.js';
import { deleteHeldActs, findHeldActs, upsertHeldAct } from './held-acts-repository.js';
import type { ActedBy } from './schemas.js';

/** How long the first act of a co-consent waits for the second (docs/pdpa.md). */
export const heldActDays = 30;

/** The first act of a co-consent, as held: who acted, their reference, and when. */
export interface HeldAct {
  role: ActorRole;
  reference?: string;
  at: string;
}

/**
 * The first act of a co-consent, held until the other side's comes (PDPA section 20): a
 * subject's `given` where the template asks for a representative's co-consent too, or the
 * representative's first. Not a decision: nothing is recorded or logged until both acts are in
 * one, which then carries the held act as its `co_consent` (with its time). The act is sealed
 * under the data key, bound to the customer's keyed look-up, the version and the side.
 */
export interface HeldActs {
  /** The act the other side holds for this customer and version, if it has not expired. */
  find(
    tenantId: string,
    lookup: string,
    versionId: string,
    side: Side,
    now: string,
  ): Promise<HeldAct | undefined>;
  /** Holds this side's act (replacing one it held), and answers when it expires. */
  hold(
    tenantId: string,
    lookup: string,
    versionId: string,
    act: HeldAct,
    now: string,
  ): Promise<string>;
  /** Drops what is held for the customer on the version: a decision on it was recorded. */
  clear(tenantId: string, lookup: string, versionId: string): Promise<void>;
  /**
   * The first answer a key gave, within its window (`422` for another request): a retry of the
   * act that completed a co-consent finds nothing held any more, and must replay, not hold.
   */
  replayed(
    tenantId: string,
    key: string,
    lookup: string,
    requestHash: string,
  ): Promise<StoredAnswer<DecisionAnswer['body']> | undefined>;
  /** The side still missing for a customer on any of these versions (an act is held), if any. */
  missing(
    tenantId: string,
    lookup: string,
    versionIds: readonly string[],
    now: string,
  ): Promise<Side | undefined>;
}

export const sideOf = (role: ActorRole): Side =>
  role === 'subject' ? 'subject' : 'representative';

const other = (side: Side): Side => (side === 'subject' ? 'representative' : 'subject');

export function heldActs(db: Executor, vault: SubjectVault): HeldActs {
  const binding = (tenantId: string, lookup: string, versionId: string, side: Side) =>
    `${tenantId}\n${lookup}\n${versionId}\n${side}`;
  return {
    async find(tenantId, lookup, versionId, side, now) {
      const [row] = (await findHeldActs(db, tenantId, lookup, [versionId], now)).filter(
        (r) => r.side === side,
      );
      if (!row) return undefined;
      return JSON.parse(
        vault.heldActs.open(binding(tenantId, lookup, versionId, side), row.act),
      ) as HeldAct;
    },
    async hold(tenantId, lookup, versionId, act, now) {
      const side = sideOf(act.role);
      const expiresAt = addDaysIso(now, heldActDays);
      await upsertHeldAct(db, {
        tenant_id: tenantId,
        lookup,
        consent_version_id: versionId,
        side,
        act: vault.heldActs.seal(binding(tenantId, lookup, versionId, side), JSON.stringify(act)),
        held_at: now,
        expires_at: expiresAt,
      });
      return expiresAt;
    },
    clear: (tenantId, lookup, versionId) => deleteHeldActs(db, tenantId, lookup, versionId),
    async replayed(tenantId, key, lookup, requestHash) {
      const [stored] = await findIdempotencyRecords(db, [{ tenant_id: tenantId, key }]);
      return replayOf<DecisionAnswer['body']>({ customer: { lookup }, requestHash }, stored);
    },
    async missing(tenantId, lookup, versionIds, now) {
      const [row] = await findHeldActs(db, tenantId, lookup, versionIds, now);
      return row ? other(row.side) : undefined;
    },
  };
}

/** The decision's act with the held act of the other side as its co-consent. */
export function joined(acted: ActedBy, held: HeldAct): ActedBy {
  return {
    ...acted,
    co_consent: {
      role: held.role,
      ...(held.reference !== undefined ? { reference: held.reference } : {}),
      at: held.at,
    },
  };
}
