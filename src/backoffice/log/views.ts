import type { AuditRun, LogCheckpoint, LogKey } from '../../decision-log/index.js';
import { count, time } from '../web/format.js';
import { csrfField } from '../web/forms.js';
import { type Html, html } from '../web/html.js';
import { basePath } from '../web/layout.js';

export function logPage(o: {
  key: LogKey;
  checkpoint: LogCheckpoint;
  checkpointAt: string | null;
  queued: number;
  lastAudit: AuditRun | undefined;
  csrfToken: string;
  zone: string;
}): Html {
  return html`<hgroup><h1>Decision log</h1><p>Every decision is appended to this tamper-evident log; receipts prove it.</p></hgroup>
<h2>Latest checkpoint</h2>
${
  o.checkpoint.size === 0
    ? html`<p>Nothing appended yet: the log starts with the first decision.</p>`
    : html`<dl class="facts">
<dt>Decisions in the log</dt><dd>${o.checkpoint.size}</dd>
<dt>Root hash</dt><dd class="mono">${o.checkpoint.root_hash}</dd>
<dt>Signed</dt><dd>${time(o.checkpointAt, o.zone)}</dd>
<dt>Waiting to be appended</dt><dd>${o.queued}</dd>
</dl>
<details><summary>The signed checkpoint</summary><pre class="mono" id="checkpoint-note">${o.checkpoint.checkpoint}</pre></details>`
}
<h2>Verifier key</h2>
<p>Give it to anyone who checks your receipts (<code>consent-service verify-receipt FILE --key KEY</code>).</p>
<output id="verifier-key" class="key-once">${o.key.verifier_key}</output>
<p><button type="button" data-copy="verifier-key" hidden>Copy</button></p>
<dl class="facts"><dt>Log origin</dt><dd class="mono">${o.key.origin}</dd></dl>
<h2>Audit</h2>
${auditResult(o.lastAudit, o.zone)}
<form method="post" action="${basePath}/log/audit">
${csrfField(o.csrfToken)}
<button type="submit" class="secondary">Run the audit now</button>
<small>Recomputes the whole log from the store and checks every record, node and checkpoint.</small>
</form>`;
}

function auditResult(run: AuditRun | undefined, zone: string): Html {
  if (!run) return html`<p>No audit has run yet.</p>`;
  const summary = html`<p>Last run ${time(run.ran_at, zone)} by ${run.ran_by}, over ${count(run.entries, 'entry', 'entries')} and ${count(run.checkpoints, 'checkpoint', 'checkpoints')}:`;
  if (run.ok) return html`${summary} <strong class="badge given">no problem found</strong></p>`;
  return html`${summary} <strong class="badge reject">${run.findings.length} problem${run.findings.length === 1 ? '' : 's'} found</strong></p>
<ul class="findings">${run.findings.map((f) => html`<li><span class="mono">${f.kind}</span>: ${f.message}</li>`)}</ul>`;
}

export function receiptQueued(decisionId: string): Html {
  return html`<h1>Receipt not ready yet</h1>
<p role="status">Decision <span class="mono">${decisionId}</span> is queued for the log; its receipt is ready within about a second. Reload this page to download it.</p>`;
}
