import type { controlKind } from '../../src/record-kinds/index.js';

/** A control change's row as a test writes it, with its personal fields opened beside it. */
export type OpenedChange = Record<string, string | number | null> & {
  id: string;
  changed_at: string;
  blocked: number;
  evidence_salt: string;
  api_key_id: string | null;
  user_id?: string | null;
  customer_id: string;
  ip: string;
  user_agent: string | null;
};

/** The leaf a control kind's writer queues for a change, with the customer's subject salt. */
export function controlLeafOf(control: ReturnType<typeof controlKind>) {
  return (row: OpenedChange, salt: string) =>
    control.leaf({ ...row, user_id: row.user_id ?? null }, row, salt);
}
