import type { ConfigurationStatus, Rate } from '../../cookies/index.js';
import { badge } from '../web/format.js';
import { type Html, html } from '../web/html.js';

/** The statuses in the words of the pages, and the badge colour each takes. */
const statuses: Record<ConfigurationStatus, [css: string, label: string]> = {
  draft: ['draft', 'Draft'],
  pending_review: ['in_review', 'Pending review'],
  pending_approval: ['reviewed', 'Pending approval'],
  approved: ['active', 'Approved'],
  rejected: ['rejected', 'Rejected'],
};

export function statusBadge(status: ConfigurationStatus): Html {
  const [css, label] = statuses[status];
  return badge(css, label);
}

export function statusLabel(status: ConfigurationStatus): string {
  return statuses[status][1];
}

export function publishBadge(published: boolean): Html {
  return published ? badge('published', 'Published') : badge('draft', 'Unpublished');
}

/** A step of a configuration's timeline as the page shows it. */
export interface StepModel {
  step: string;
  actor: string;
  note: string | null;
  at: string;
}

export const stepWords: Record<string, string> = {
  created: 'Created',
  changed: 'Draft changed',
  submitted: 'Submitted for review',
  passed: 'Review passed',
  approved: 'Approved',
  sent_back: 'Sent back to draft',
  rejected: 'Rejected',
  published: 'Published',
  unpublished: 'Unpublished',
};

/** How a visitor's choice was made, in the words of the pages. */
export const methodWords: Record<string, string> = {
  'accept-all': 'Accept all',
  'reject-all': 'Reject all',
  custom: 'Custom',
  gpc: 'Global Privacy Control',
};

/** A choice's categories, each granted or denied, as every page that lists choices shows them. */
export function categoryBadges(categories: Record<string, boolean>): Html {
  const keys = Object.keys(categories);
  return html`${keys.map(
    (key, i) =>
      html`${i > 0 ? ' ' : ''}${categories[key] ? badge('given', `${key}: granted`) : badge('reject', `${key}: denied`)}`,
  )}`;
}

const percent = (share: number) => `${(share * 100).toFixed(1)}%`;

/** An opt-in rate's table cell: the share, then its 95% interval; a dash when nothing was offered. */
export function rateCell(rate: Rate | null | undefined): Html {
  return html`<td>${rate ? html`${percent(rate.rate)} <small>(${percent(rate.low)} to ${percent(rate.high)})</small>` : '—'}</td>`;
}
