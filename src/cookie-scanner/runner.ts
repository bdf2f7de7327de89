/**
 * The scans an instance runs: in the background ("Scan now" in the back-office: started at once,
 * so the order's mistakes and a scan already running are answered on the spot, then run to
 * their end while the page shows them), or waited for (a schedule's). When the instance stops, a scan it is running is marked
 * `interrupted` at once (the browser dies with the process), so no system waits for it.
 */
import type { CookieScanSettings } from '../platform/config.js';
import type { Db } from '../platform/db.js';
import { nowIso } from '../platform/time.js';
import type { Teller } from './notify.js';
import { endScan } from './repository.js';
import { finishScan, type ScanOrder, startScan } from './service.js';

export interface ScanRunner {
  /** Starts a scan and runs it in the background; answers its id. */
  start(order: ScanOrder): Promise<string>;
  /** Starts a scan and waits for its end (a schedule's). */
  run(order: ScanOrder): Promise<void>;
  /** Marks the scans still running here interrupted; waits for none of them. */
  close(): Promise<void>;
}

export function scanRunner(
  db: Db,
  settings: CookieScanSettings,
  publicBaseUrl: string,
  teller: Teller,
  onError: (error: unknown) => void,
): ScanRunner {
  const running = new Map<string, string>();
  let closing = false;
  const begin = async (order: ScanOrder) => {
    const started = await startScan(db, settings, order);
    const { id } = started.row;
    running.set(id, order.tenantId);
    const end = finishScan(db, settings, publicBaseUrl, started, order.system, teller)
      .then(
        () => undefined,
        (error: unknown) => {
          if (!closing) onError(error);
        },
      )
      .finally(() => running.delete(id));
    return { id, end };
  };
  return {
    async start(order) {
      return (await begin(order)).id;
    },
    async run(order) {
      await (await begin(order)).end;
    },
    async close() {
      closing = true;
      for (const [id, tenantId] of running) {
        await endScan(db, tenantId, id, {
          status: 'interrupted',
          finished_at: nowIso(),
          error: 'The service stopped during the scan.',
        }).catch(onError);
      }
    },
  };
}
