/**
 * The tag the new-version form starts with: the latest version's tag with its last number raised
 * by one (`1.0` -> `1.1`, `2` -> `3`, `v1.2.3` -> `v1.2.4`), past any tag already in use; `1.0`
 * for a first version, and nothing when the latest tag has no number. Only a suggestion: the
 * user may change it.
 */
export function suggestNextTag(latest: string | undefined, inUse: readonly string[]): string {
  if (latest === undefined) return inUse.includes('1.0') ? '' : '1.0';
  const match = /^(.*?)(\d+)(\D*)$/.exec(latest);
  if (!match) return '';
  const [, before = '', digits = '', after = ''] = match;
  let number = Number(digits);
  let tag: string;
  do {
    number += 1;
    tag = `${before}${number}${after}`;
  } while (inUse.includes(tag));
  return tag;
}
