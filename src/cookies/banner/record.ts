/**
 * Records a choice with the service. The choice already applies on the page: this only keeps
 * its proof, so a failure costs the receipt, never the visitor's choice.
 */
import type { ChoiceAnswer, ChoiceBody } from '../banner-config.js';
import { config } from './config.js';

const retries = 3;

/**
 * POSTs `body` as `text/plain` JSON, a CORS "simple" request, so no preflight doubles the
 * round trips; without credentials (the service needs none, and the site's cookies are none of
 * its business); `keepalive`, so a visitor who chooses and leaves at once is still recorded. A
 * network error, a 5xx or a 429 is retried with the same `event_id`, which the service records
 * once, after 0.5-1, 1-2 and 2-4 s.
 */
export function record(
  body: ChoiceBody,
  onRecorded: (answer: ChoiceAnswer['data']) => void,
  attempt = 0,
): void {
  const retry = () => {
    if (attempt < retries) {
      setTimeout(
        () => record(body, onRecorded, attempt + 1),
        500 * 2 ** attempt * (1 + Math.random()),
      );
    }
  };
  fetch(config.decisions_url, {
    method: 'POST',
    headers: { 'Content-Type': 'text/plain;charset=UTF-8' },
    body: JSON.stringify(body),
    credentials: 'omit',
    keepalive: true,
  })
    .then((response) => {
      if (response.status === 200 || response.status === 201) {
        return response.json().then((answer: ChoiceAnswer) => onRecorded(answer.data));
      }
      if (response.status >= 500 || response.status === 429) retry();
    }, retry)
    // An answer that is not the contract's: the choice stands without its receipt.
    .catch(() => undefined);
}
