// UUIDs as the service accepts them in paths, queries and channel payloads: the 8-4-4-4-12
// hexadecimal form, in either case (callers lower-case what they store and compare).

/** The form as a pattern fragment, for a pattern that holds a UUID inside a longer text (a path). */
export const UUID_PATTERN_SOURCE = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
const UUID_PATTERN = new RegExp(`^${UUID_PATTERN_SOURCE}$`);

export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}
