import { describe, expect, it } from 'vitest';
import {
  bigintNumber,
  bigintText,
  bool,
  int,
  intList,
  jsonList,
  nullableBigintText,
  nullableInt,
  nullableText,
  oneOf,
  text,
} from '../../src/core/platform/row-checks.ts';

// The checks queries modules' row mappers make where queryRows<T> would only assert a type.
describe('row checks', () => {
  it('pass values of the expected type through', () => {
    expect(int(7, 'n')).toBe(7);
    expect(nullableInt(null, 'n')).toBeNull();
    expect(bigintText('9007199254740993', 'id')).toBe('9007199254740993');
    expect(bigintText(12, 'id')).toBe('12');
    expect(nullableBigintText(null, 'id')).toBeNull();
    expect(bigintNumber('42', 'count')).toBe(42);
    expect(text('a', 't')).toBe('a');
    expect(nullableText(null, 't')).toBeNull();
    expect(bool(false, 'b')).toBe(false);
    expect(oneOf(['pending', 'failed'] as const, 'failed', 'status')).toBe('failed');
    expect(intList([1, 2], 'ids')).toEqual([1, 2]);
    expect(jsonList([], 'items')).toEqual([]);
  });

  it('refuse what a cast would have let through, naming the column', () => {
    // a bigint or count(*) arrives as text: an int column check catches a missing ::int
    expect(() => int('7', 'count')).toThrow(/column count: expected an integer, got string "7"/);
    expect(() => int(1.5, 'n')).toThrow(/column n/);
    expect(() => nullableInt(undefined, 'n')).toThrow(/column n/);
    expect(() => bigintText('12a', 'id')).toThrow(/column id: expected bigint digits/);
    expect(() => bigintNumber('9007199254740993', 'count')).toThrow(/column count: expected a safe integer/);
    expect(() => text(null, 'name')).toThrow(/column name: expected text, got null/);
    expect(() => bool('t', 'ready')).toThrow(/column ready/);
    expect(() => oneOf(['pending', 'failed'] as const, 'done', 'status')).toThrow(/column status: expected one of pending, failed/);
    // an int[] that came back as its text form, or an item of the wrong type
    expect(() => intList('{1,2}', 'ids')).toThrow(/column ids: expected an int\[\]/);
    expect(() => intList([1, '2'], 'ids')).toThrow(/column ids\[1\]/);
    expect(() => jsonList({}, 'items')).toThrow(/column items: expected a JSON array/);
  });
});
