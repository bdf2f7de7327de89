/** Following a log from outside, as an auditor does: `consent-service monitor`. */
export {
  type LogSource,
  MonitorError,
  type MonitorOptions,
  type MonitorReport,
  monitorLog,
} from './service.js';
