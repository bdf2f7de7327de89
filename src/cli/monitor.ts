import { existsSync, readFileSync } from 'node:fs';
import { MonitorError, type MonitorReport, monitorLog } from '../monitor/index.js';
import { UsageError } from './command.js';
import type { CliIo } from './main.js';

/** A value given as text, or as a file holding it (a key kept out of `ps`). */
const textOrFile = (value: string) =>
  (existsSync(value) ? readFileSync(value, 'utf8') : value).trim();

/**
 * `consent-service monitor --url URL --api-key KEY --state FILE [--key VKEY] [--witness-url W …]`:
 * one observation of a tenant's log from outside (docs/witnesses.md, "Monitoring"). Prints the
 * report; exits 0 when the log is consistent with everything seen, 3 on a split view or a log
 * that went back (the evidence kept beside the state), 1 when it could not be checked.
 */
export async function monitorCommand(
  values: Record<string, string | string[] | undefined>,
  io: CliIo,
): Promise<number> {
  const one = (name: string) => {
    const value = values[name];
    if (value === undefined) throw new UsageError(`Missing --${name}.`);
    return String(value);
  };
  let report: MonitorReport;
  try {
    report = await monitorLog({
      source: { url: one('url'), apiKey: textOrFile(one('api-key')) },
      stateFile: one('state'),
      ...(values.key === undefined ? {} : { verifierKey: textOrFile(String(values.key)) }),
      witnessUrls: [values['witness-url'] ?? []].flat(),
      timeoutMs: 10_000,
    });
  } catch (error) {
    if (!(error instanceof MonitorError)) throw error;
    io.stderr(`The log could not be checked: ${error.message}\n`);
    return 1;
  }
  io.stdout(`${JSON.stringify(report)}\n`);
  if (report.ok) return 0;
  io.stderr(
    `The log misbehaved:\n${report.problems.map((p) => `  ${p}\n`).join('')}Evidence: ${report.evidence}\n`,
  );
  return 3;
}
