/**
 * A visitor the site has signed in (docs/cookies.md, "Signed-in visitors"): the page gives the
 * banner its customer's token (`data-customer-token`), which the banner sends with a choice, so
 * that the choice is the customer's too, and with the question of what the customer chose last
 * on this site from any device, so that a choice follows them to another device.
 */
import type { ChoiceMethod } from '../banner-config.js';
import { config } from './config.js';
import { type Choice, isValid } from './cookies.js';

interface Answer {
  data?: {
    choice?: {
      decision_id: string;
      decided_at: string;
      configuration_id: string;
      fingerprint: string;
      method: ChoiceMethod;
      categories: Record<string, boolean>;
    } | null;
  };
}

/** How long a first view waits for the answer before it asks the visitor itself. */
const patienceMs = 3000;

/**
 * The customer's newest choice on this site as this device keeps one, or null: none, one made
 * on other categories or texts than the banner's (its fingerprint), one past its lifetime, or
 * no answer in time (a token expired, the network down): the banner then does as without one.
 */
export function customerChoice(token: string, visitorId: string): Promise<Choice | null> {
  const asked = fetch(config.decisions_url.replace(/decisions$/, 'customer-choice'), {
    method: 'POST',
    headers: { 'Content-Type': 'text/plain;charset=UTF-8' },
    body: JSON.stringify({ customer_token: token }),
    credentials: 'omit',
  })
    .then((response): Answer | Promise<Answer> => (response.ok ? response.json() : {}))
    .then(({ data }) => {
      const theirs = data?.choice;
      if (!theirs) return null;
      const choice: Choice = {
        visitor_id: visitorId,
        configuration_id: theirs.configuration_id,
        fingerprint: theirs.fingerprint,
        decided_at: theirs.decided_at,
        method: theirs.method,
        decision_id: theirs.decision_id,
        categories: theirs.categories,
      };
      return isValid(choice) ? choice : null;
    })
    .catch(() => null);
  return Promise.race([
    asked,
    new Promise<null>((resolve) => setTimeout(() => resolve(null), patienceMs)),
  ]);
}
