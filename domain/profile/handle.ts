// Handle rules (PATCH /api/v1/me/profile, docs/MEMBER.md "Profile"). Pure: the lists of reserved and blocked handles
// arrive from the operator settings, availability is checked by the reservation stream.
//
// Rules, in the order they are checked (the first that fails names the 422):
//   1. blank (empty or only whitespace)        → 'Handle must not be blank'
//   2. 3 to 24 characters                      → 'Handle must be 3 to 24 characters'
//   3. lowercase letters, digits, inner . or _ → 'Handle may contain only lowercase letters, digits and inner . or _'
//   4. not reserved (exact match)              → 'Handle is reserved'
//   5. not blocked (contains a blocked term)   → 'Handle is blocked'
// Input is case folded first, so `Alice` is the handle `alice`.

const HANDLE_LENGTH_MIN = 3;
const HANDLE_LENGTH_MAX = 24;
export const HANDLE_CHANGE_WINDOW_US = 30 * 24 * 3600 * 1_000_000;

/** Lowercase letters and digits at both ends; `.` and `_` allowed only inside. */
const HANDLE_PATTERN = /^[a-z0-9](?:[a-z0-9._]*[a-z0-9])?$/;

export const HandleRule = {
  blank: 'Handle must not be blank',
  length: `Handle must be ${HANDLE_LENGTH_MIN} to ${HANDLE_LENGTH_MAX} characters`,
  characters: 'Handle may contain only lowercase letters, digits and inner . or _',
  reserved: 'Handle is reserved',
  blocked: 'Handle is blocked',
  taken: 'Handle is taken',
  window: 'Handle can be changed only once every 30 days',
} as const;

type HandleRuleName = keyof typeof HandleRule;

export interface HandleLists {
  reserved_handles: readonly string[];
  blocked_handles: readonly string[];
}

/** Case folding applied to every handle before any rule or lookup. */
export function foldHandle(raw: string): string {
  return raw.toLowerCase();
}

/** Letters and digits only: a blocked term matches however dots and underscores are placed. */
function squash(value: string): string {
  return value.toLowerCase().replace(/[._\s-]/g, '');
}

/** The first handle rule the (already folded) candidate breaks, or null when it is acceptable. */
export function handleRuleBroken(handle: string, lists: HandleLists): HandleRuleName | null {
  if (handle.trim() === '') return 'blank';
  const length = [...handle].length;
  if (length < HANDLE_LENGTH_MIN || length > HANDLE_LENGTH_MAX) return 'length';
  if (!HANDLE_PATTERN.test(handle)) return 'characters';
  if (lists.reserved_handles.some((reserved) => foldHandle(reserved) === handle)) return 'reserved';
  const squashed = squash(handle);
  if (lists.blocked_handles.some((blocked) => squash(blocked) !== '' && squashed.includes(squash(blocked))))
    return 'blocked';
  return null;
}

/** True when the string is a syntactically valid handle (used by the avatar route). */
export function isWellFormedHandle(handle: string): boolean {
  const length = handle.length;
  return length >= HANDLE_LENGTH_MIN && length <= HANDLE_LENGTH_MAX && HANDLE_PATTERN.test(handle);
}

const GENERATED_WORDS = ['trader', 'oracle', 'punter', 'caller', 'maker', 'taker', 'seer', 'picker'] as const;

/**
 * A generated handle from caller-supplied entropy (the domain draws no random numbers):
 * `{word}_{6 base36 chars}`, always valid under the character and length rules.
 */
export function generatedHandle(entropy: Uint8Array): string {
  const word = GENERATED_WORDS[(entropy[0] ?? 0) % GENERATED_WORDS.length] ?? 'trader';
  let suffix = '';
  for (let i = 1; suffix.length < 6; i += 1) suffix += ((entropy[i % entropy.length] ?? i) % 36).toString(36);
  return `${word}_${suffix}`;
}
