// Text rules shared by the engine and the HTTP layer.

const NUL = '\u0000';

/** Whether any string (or object key) inside `value` holds a NUL (no allocation). */
function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes(NUL);
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (holdsNul(value[i])) return true;
    return false;
  }
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    if (key.includes(NUL) || holdsNul((value as Record<string, unknown>)[key])) return true;
  }
  return false;
}

function locateNul(value: unknown, path: string): string | null {
  if (typeof value === 'string') return value.includes(NUL) ? (path || 'value') : null;
  if (value === null || typeof value !== 'object') return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = locateNul(value[i], `${path}[${i}]`);
      if (found !== null) return found;
    }
    return null;
  }
  for (const key of Object.keys(value)) {
    if (key.includes(NUL)) return path || 'body';
    const found = locateNul((value as Record<string, unknown>)[key], path ? `${path}.${key}` : key);
    if (found !== null) return found;
  }
  return null;
}

/**
 * The path of the first string (or object key) holding a NUL (`orders[1].client_order_id`), or
 * null when there is none. NUL characters (U+0000) cannot be stored in PostgreSQL text: every
 * request field holding one is refused (api/nul.ts), and the engine refuses any input holding
 * one (a journaled NUL would fail every projection transaction that writes it).
 */
export function findNul(value: unknown): string | null {
  return holdsNul(value) ? locateNul(value, '') : null;
}
