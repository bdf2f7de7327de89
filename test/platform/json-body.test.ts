import { describe, expect, it } from 'vitest';
import { repeatsAKey } from '../../src/platform/json-body.js';

/** Literal JSON texts, each valid, and whether some object in it names a key twice. */
const vectors: [string, string, boolean][] = [
  ['a flat object', '{"a":1,"b":2}', false],
  ['a flat object repeating a key', '{"a":1,"b":2,"a":3}', true],
  ['a key repeated with the same value', '{"a":1,"a":1}', true],
  ['a key and its \\u-escaped spelling', '{"a":1,"\\u0061":2}', true],
  ['an empty object, an empty array, scalars', '[{},[],1,"x",null,true]', false],
  ['a scalar', '"a:b"', false],
  ['one name in sibling objects', '{"a":{"a":1},"b":[{"a":1},{"a":2}]}', false],
  ['a repeat in a nested object', '{"a":{"b":1,"b":2}}', true],
  ['a repeat in an object inside an array', '{"a":[1,{"c":1,"d":{"e":1,"e":2}}]}', true],
  ['a repeat three levels down in arrays', '[[[{"x":1,"x":2}]]]', true],
  ['colons inside string values', '{"a":"x:y","b":"::","c":":"}', false],
  ['colons and quotes inside names', '{"a:b":1,"a\\":b":2,"\\"":3}', false],
  ['an escaped backslash ending a string', '{"a":"\\\\","b":"\\\\\\"","c":1}', false],
  ['an escaped backslash ending a string, then a repeat', '{"a":"\\\\","a":2}', true],
  ['whitespace everywhere', ' {\n "a" :\t1 ,\r\n "b" : { "a" : 2 } } ', false],
  ['whitespace everywhere, with a repeat', ' {\n "a" :\t1 ,\r\n "a" : 2 } ', true],
  ['names that differ only in case', '{"a":1,"A":2}', false],
  ['"__proto__"-like names that differ', '{"proto":1,"_proto_":2}', false],
  [
    'a long flat object',
    `{${Array.from({ length: 500 }, (_, i) => `"k${i}":${i}`).join(',')}}`,
    false,
  ],
  [
    'a long flat object repeating its first key last',
    `{${Array.from({ length: 500 }, (_, i) => `"k${i}":${i}`).join(',')},"k0":0}`,
    true,
  ],
  ['deeply nested arrays', `${'['.repeat(5000)}${']'.repeat(5000)}`, false],
  [
    'deeply nested objects with a repeat at the bottom',
    `${'{"a":'.repeat(2000)}{"b":1,"b":2}${'}'.repeat(2000)}`,
    true,
  ],
];

describe('repeated keys in a JSON text', () => {
  it.each(vectors)('%s: %#', (_label, text, expected) => {
    expect(repeatsAKey(text, JSON.parse(text))).toBe(expected);
  });
});
