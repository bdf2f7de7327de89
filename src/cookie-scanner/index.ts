/** The public surface of `src/cookie-scanner/`: what other folders may import (its README says what the folder is for). */
export type { Phase } from './crawl.js';
export { declareScannedCookies } from './declare.js';
export type { ScanChanges, ScanFindings, Violation } from './findings.js';
export { cookieScanEvents } from './kind.js';
export { scanPageUrl, type Teller } from './notify.js';
export {
  listOverrides,
  type OverrideInput,
  type OverrideView,
  removeOverride,
  setOverride,
} from './overrides.js';
export { type ScanRunner, scanRunner } from './runner.js';
export {
  getScanSchedule,
  maxEveryDays,
  runDueScans,
  type ScanSchedule,
  setScanSchedule,
} from './schedule.js';
export {
  defaultPages,
  finishScan,
  getScan,
  maxPages,
  runScan,
  type ScanOrder,
  type ScanResult,
  type ScanTrigger,
  type ScanView,
  scanHistory,
  startScan,
} from './service.js';
