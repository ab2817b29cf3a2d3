/**
 * A record's entry for an outside string (a call id comes from the model or a request), own
 * keys only: `record['constructor']` would otherwise read Object.prototype's, so a call named
 * `constructor`, `toString` or `__proto__` would look requested, answered or running and its
 * prompt could never be answered (X16). Keys are written as own properties by spread and
 * computed keys, and JSON.parse keeps them own, so reads are where the guard belongs.
 */
export function ownEntry<V>(
  record: Readonly<Record<string, V>> | undefined,
  key: string,
): V | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

/** Whether the record holds `key` as its own entry (the `in` operator also sees inherited ones). */
export function hasOwnEntry(record: Readonly<Record<string, unknown>>, key: string): boolean {
  return Object.hasOwn(record, key);
}

/**
 * `record[key] = value` for an outside key: assigning `__proto__` would set the prototype and
 * lose the entry, so the property is defined instead.
 */
export function setOwnEntry<V>(record: Record<string, V>, key: string, value: V): void {
  Object.defineProperty(record, key, {
    value,
    writable: true,
    enumerable: true,
    configurable: true,
  });
}
