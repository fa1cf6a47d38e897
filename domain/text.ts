// Text rules shared by the engine and the HTTP layer: no NUL characters anywhere, and no JSON
// nested deeper than a named bound. The walk is iterative (an explicit stack), so a hostile body
// nested ten thousand deep costs a bounded loop and a clear refusal, never a stack overflow.

const NUL = '\u0000';

/** Objects and arrays inside one another, at most: far above any body the API takes. */
export const JSON_NESTING_DEPTH_MAX = 32;

/** A refusal (domain/errors.ts): `orders[1].client_order_id must not contain NUL characters`. */
type TextProblem = { code: 'text_has_nul'; path: string } | { code: 'text_too_deep'; depth_max: number };

interface Frame {
  value: unknown;
  key: string | number | null;
  parent: Frame | null;
  depth: number;
}

/** `orders[1].client_order_id`; `body` at the top. */
function pathOf(frame: Frame): string {
  const keys: Array<string | number> = [];
  for (let f: Frame | null = frame; f !== null && f.key !== null; f = f.parent) keys.push(f.key);
  let path = '';
  for (let i = keys.length - 1; i >= 0; i--) {
    const step = keys[i]!;
    path += typeof step === 'number' ? `[${step}]` : path ? `.${step}` : step;
  }
  return path || 'body';
}

/**
 * The first problem of `value`, depth first in document order: a string (or object key) holding
 * a NUL, or nesting deeper than JSON_NESTING_DEPTH_MAX; null when there is none. Nothing is
 * allocated beyond the stack unless a problem is found (the engine runs this on every input).
 */
export function textProblemOf(value: unknown): TextProblem | null {
  if (typeof value === 'string') return value.includes(NUL) ? { code: 'text_has_nul', path: 'body' } : null;
  if (value === null || typeof value !== 'object') return null;
  const stack: Frame[] = [{ value, key: null, parent: null, depth: 0 }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const current = frame.value;
    if (typeof current === 'string') {
      if (current.includes(NUL)) return { code: 'text_has_nul', path: pathOf(frame) };
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    if (frame.depth >= JSON_NESTING_DEPTH_MAX) return { code: 'text_too_deep', depth_max: JSON_NESTING_DEPTH_MAX };
    if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--)
        stack.push({ value: current[i], key: i, parent: frame, depth: frame.depth + 1 });
      continue;
    }
    const keys = Object.keys(current);
    for (const key of keys) if (key.includes(NUL)) return { code: 'text_has_nul', path: pathOf(frame) };
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!;
      stack.push({ value: (current as Record<string, unknown>)[key], key, parent: frame, depth: frame.depth + 1 });
    }
  }
  return null;
}

/**
 * The path of the first string (or object key) holding a NUL, or null when there is none. NUL
 * characters (U+0000) cannot be stored in PostgreSQL text: every request field holding one is
 * refused (api/textGuard.ts), and the engine refuses any input holding one (a journaled NUL would fail
 * every projection transaction that writes it). Nesting past the bound counts as a problem at the top.
 */
export function findNul(value: unknown): string | null {
  const problem = textProblemOf(value);
  if (problem === null) return null;
  return problem.code === 'text_has_nul' ? problem.path : 'body';
}
