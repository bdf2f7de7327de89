/**
 * A/B variants (docs/cookies.md, "A/B tests"): what a variant may say, the check that refuses
 * one making rejecting harder or less prominent, how a visitor is drawn into one, and the
 * confidence intervals of the rates (reference values computed apart with Python's `math`, from
 * Wilson's formula with z = 1.959963984540054).
 */
import { describe, expect, it } from 'vitest';
import { checkContent, defaultContent } from '../../src/cookies/index.js';
import { wilson } from '../../src/cookies/variant-rates.js';
import { assertFairVariants, variantOfVisitor } from '../../src/cookies/variants.js';
import { AppError } from '../../src/platform/errors.js';

const base = defaultContent(['analytics', 'marketing']);

function refusal(check: () => unknown) {
  try {
    check();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return { message: (error as AppError).message, details: (error as AppError).details };
  }
  throw new Error('accepted');
}

describe('A/B variants', () => {
  it('take a unique key, a share of at most 100% in all, and texts in the configuration’s locales', () => {
    const checked = checkContent({
      ...base,
      variants: [
        { key: 'short', weight: 30, texts: { EN: { title: 'Cookies?' } } },
        { key: 'box', weight: 30, layout: { kind: 'box', position: 'center' } },
      ],
    });
    expect(checked.variants?.[0]?.texts).toEqual({ en: { title: 'Cookies?' } });
    expect(
      refusal(() =>
        checkContent({
          ...base,
          variants: [
            { key: 'base', weight: 60 },
            { key: 'b', weight: 30, texts: { fr: { title: 'Cookies ?' } } },
            { key: 'b', weight: 20 },
          ],
        }),
      ).details,
    ).toEqual([
      { field: 'variants.0.key', issue: 'must be unique and not base' },
      { field: 'variants.1.texts.fr', issue: 'has fr, which texts has not' },
      { field: 'variants.2.key', issue: 'must be unique and not base' },
      { field: 'variants', issue: 'share more than 100% of the visitors' },
    ]);
  });

  it('are refused at review when Reject all takes more clicks, or is another kind of control than Accept all', () => {
    const fair = checkContent({
      ...base,
      variants: [{ key: 'b', weight: 50, texts: { en: { reject_all: 'No thanks' } } }],
    });
    expect(() => assertFairVariants(fair)).not.toThrow();
    // Without variants there is no test to check.
    expect(() =>
      assertFairVariants(
        checkContent({ ...base, layout: { ...base.layout, reject_layer: 'preferences' } }),
      ),
    ).not.toThrow();

    const unfair = checkContent({
      ...base,
      variants: [
        { key: 'hidden', weight: 30, layout: { reject_layer: 'preferences' } },
        { key: 'link', weight: 30, layout: { reject_style: 'link' } },
        { key: 'grey', weight: 30, layout: { reject_style: 'outlined' } },
      ],
    });
    expect(refusal(() => assertFairVariants(unfair))).toEqual({
      message: 'A variant makes rejecting harder or less prominent than accepting.',
      details: [
        {
          field: 'variants.0.layout',
          issue:
            '(variant hidden) rejecting takes 2 clicks (Preferences, then Save) where accepting takes 1: Reject all must be on the first layer',
        },
        {
          field: 'variants.1.layout',
          issue:
            '(variant link) Reject all is a link where Accept all is a filled button: it must be the same kind of control, of the same size and colours',
        },
        {
          field: 'variants.2.layout',
          issue:
            '(variant grey) Reject all is an outlined button where Accept all is a filled button: it must be the same kind of control, of the same size and colours',
        },
      ],
    });
    // The configuration itself is the base variant: its own layout is checked too.
    const unfairBase = checkContent({
      ...base,
      layout: { ...base.layout, reject_style: 'link' },
      variants: [{ key: 'b', weight: 50, layout: { reject_style: 'filled' } }],
    });
    expect(refusal(() => assertFairVariants(unfairBase)).details).toEqual([
      expect.objectContaining({
        field: 'layout',
        issue: expect.stringContaining('(variant base)'),
      }),
    ]);
  });

  it('draw a visitor by the first 8 hex digits of their id, modulo 100, against the shares in order', () => {
    const content = checkContent({
      ...base,
      variants: [
        { key: 'b', weight: 20 },
        { key: 'c', weight: 30 },
      ],
    });
    const id = (hex: string) => `${hex}-0000-4000-8000-000000000000`;
    expect(variantOfVisitor(content, id('00000000'))).toBe('b'); // 0
    expect(variantOfVisitor(content, id('00000013'))).toBe('b'); // 19
    expect(variantOfVisitor(content, id('00000014'))).toBe('c'); // 20
    expect(variantOfVisitor(content, id('00000031'))).toBe('c'); // 49
    expect(variantOfVisitor(content, id('00000032'))).toBe('base'); // 50
    expect(variantOfVisitor(content, id('ffffffff'))).toBe('base'); // 4294967295 % 100 = 95
    expect(variantOfVisitor(content, id('FFFFFFCE'))).toBe('c'); // 4294967246 % 100 = 46
  });

  it('rate each category with its Wilson 95% interval', () => {
    const cases: Array<[number, number, number, number]> = [
      [50, 100, 0.4038, 0.5962],
      [0, 10, 0, 0.2775],
      [10, 10, 0.7225, 1],
      [3, 7, 0.1582, 0.7495],
      [120, 200, 0.5308, 0.6654],
      [45, 200, 0.1726, 0.2877],
    ];
    for (const [granted, n, low, high] of cases) {
      const rate = wilson(granted, n);
      expect(rate?.rate).toBe(granted / n);
      expect(rate?.low).toBeCloseTo(low, 4);
      expect(rate?.high).toBeCloseTo(high, 4);
    }
    expect(wilson(0, 0)).toBeNull();
  });
});
