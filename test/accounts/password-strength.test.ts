import { describe, expect, it } from 'vitest';
import { passwordWeakness } from '../../src/accounts/password-strength.js';

describe('password strength', () => {
  it.each([
    ['password1234', []],
    ['qwertyuiop12', []],
    ['aaaaaaaaaaaa', []],
    ['jane.doe@acme.test', ['jane.doe@acme.test']],
    ['acmeacme2024', ['acme']],
    ['Jane Doe 1985', ['jane.doe@acme.test', 'Jane Doe']],
  ])('refuses %j, saying why', async (password, inputs) => {
    const weakness = await passwordWeakness(password, inputs);
    expect(weakness).toMatch(/^This password is too easy to guess\./);
  });

  it.each([
    'correct horse battery staple',
    'Tr0ub4dor&3-plus-more-words',
    'kV7#pq9!Lm2$wX',
    'a long enough password',
  ])('accepts %j', async (password) => {
    expect(
      await passwordWeakness(password, ['jane.doe@acme.test', 'Jane Doe', 'acme']),
    ).toBeUndefined();
  });
});
