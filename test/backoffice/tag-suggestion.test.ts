import { describe, expect, it } from 'vitest';
import { suggestNextTag } from '../../src/backoffice/templates/tag-suggestion.js';

describe('the tag suggested for a new version', () => {
  it.each([
    ['1.0', [], '1.1'],
    ['2', [], '3'],
    ['v1.2.3', [], 'v1.2.4'],
    ['1.9', [], '1.10'],
    ['1.0', ['1.1', '1.2'], '1.3'],
    [undefined, [], '1.0'],
    ['release', [], ''],
  ] as const)('after %s (in use: %j) is %s', (latest, used, expected) => {
    expect(suggestNextTag(latest, used)).toBe(expected);
  });
});
