// Text rules shared by the engine and the HTTP layer.

const NUL = '\u0000';

/**
 * The keys leading from `value` to the first string (or object key) holding a NUL, innermost
 * first; empty when `value` itself is that string or object; null when there is none. Nothing is
 * allocated unless a NUL is found (the engine runs this on every input).
 */
function nulTrail(value: unknown): Array<string | number> | null {
  if (typeof value === 'string') return value.includes(NUL) ? [] : null;
  if (value === null || typeof value !== 'object') return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const trail = nulTrail(value[i]);
      if (trail) return (trail.push(i), trail);
    }
    return null;
  }
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    if (key.includes(NUL)) return [];
    const trail = nulTrail((value as Record<string, unknown>)[key]);
    if (trail) return (trail.push(key), trail);
  }
  return null;
}

/**
 * The path of the first string (or object key) holding a NUL (`orders[1].client_order_id`;
 * `body` when it is at the top), or null when there is none. NUL characters (U+0000) cannot be
 * stored in PostgreSQL text: every request field holding one is refused (api/nul.ts), and the
 * engine refuses any input holding one (a journaled NUL would fail every projection transaction
 * that writes it).
 */
export function findNul(value: unknown): string | null {
  const trail = nulTrail(value);
  if (trail === null) return null;
  let path = '';
  for (let i = trail.length - 1; i >= 0; i--) {
    const step = trail[i]!;
    path += typeof step === 'number' ? `[${step}]` : path ? `.${step}` : step;
  }
  return path || 'body';
}
