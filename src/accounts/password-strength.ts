import type { ZxcvbnFactory } from '@zxcvbn-ts/core';

/**
 * Weak passwords are refused by estimating how many guesses a cracker would need (zxcvbn-ts,
 * with its common-password and English dictionaries and keyboard graphs), not by a length rule
 * alone. Score 3 ("safely unguessable: moderate protection from offline slow-hash scenario",
 * about 10^8 guesses and more) is the floor: back-office passwords are stored with scrypt.
 */
const minimumScore = 3;

let factory: Promise<ZxcvbnFactory> | undefined;

/**
 * Loaded and built on first use: the dictionaries cost memory the API alone never needs, and
 * loading them took a fifth of a second of every start of the service and of each command.
 */
function estimator(): Promise<ZxcvbnFactory> {
  factory ??= (async () => {
    const [{ ZxcvbnFactory }, common, english] = await Promise.all([
      import('@zxcvbn-ts/core'),
      import('@zxcvbn-ts/language-common'),
      import('@zxcvbn-ts/language-en'),
    ]);
    return new ZxcvbnFactory({
      dictionary: { ...common.dictionary, ...english.dictionary },
      graphs: common.adjacencyGraphs,
      translations: english.translations,
    });
  })();
  return factory;
}

/**
 * Why the password is too easy to guess, as a sentence for the form; undefined when it is
 * strong enough. `userInputs` are words of the account (e-mail, its parts, name, tenant alias):
 * a password made of them is as weak as a dictionary word.
 */
export async function passwordWeakness(
  password: string,
  userInputs: readonly string[],
): Promise<string | undefined> {
  const inputs = userInputs
    .flatMap((input) => [input, ...input.split(/[@.+_\s-]+/)])
    .filter(Boolean);
  const result = (await estimator()).check(password, inputs);
  if (result.score >= minimumScore) return undefined;
  const why = result.feedback.warning ? ` ${result.feedback.warning}` : '';
  const advice = result.feedback.suggestions[0] ?? 'Add more words that are less common.';
  return `This password is too easy to guess.${why} ${advice}`.replace(/\s+/g, ' ').trim();
}
