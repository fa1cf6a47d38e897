// Query-string parsing shared by the member list routes (400 on malformed values).
import { isUuid } from '../../../domain/uuid.ts';
import { badRequest } from '../../errors.ts';

/** Bound on ids in one comma-separated filter. */
const FILTER_IDS_MAX = 200;

function single(name: string, raw: unknown): string | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string') throw badRequest(`${name} must be given once`);
  return raw;
}

/** Comma-separated UUIDs; undefined when absent or empty. */
export function uuidList(name: string, raw: unknown): string[] | undefined {
  const text = single(name, raw);
  if (text === undefined || text.trim() === '') return undefined;
  const ids = text
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id !== '');
  if (ids.length > FILTER_IDS_MAX) throw badRequest(`${name} holds at most ${FILTER_IDS_MAX} ids`);
  if (!ids.every(isUuid)) throw badRequest(`${name} must be comma-separated UUIDs`);
  return ids.map((id) => id.toLowerCase());
}

/** Comma-separated names, lowercased for case-insensitive matching. */
export function lowercaseList(name: string, raw: unknown): string[] | undefined {
  const text = single(name, raw);
  if (text === undefined || text.trim() === '') return undefined;
  const names = text
    .split(',')
    .map((v) => v.trim().toLowerCase())
    .filter((v) => v !== '');
  if (names.length > FILTER_IDS_MAX) throw badRequest(`${name} holds at most ${FILTER_IDS_MAX} values`);
  return names.length > 0 ? names : undefined;
}

/** An integer (UNIX microseconds); 400 otherwise. */
export function int64Param(name: string, raw: unknown): number | undefined {
  const text = single(name, raw);
  if (text === undefined || text === '') return undefined;
  if (!/^-?\d{1,19}$/.test(text)) throw badRequest(`${name} must be an integer (UNIX microseconds)`);
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw badRequest(`${name} must be an integer (UNIX microseconds)`);
  return value;
}

/** `true` / `false`; any other value is silently ignored (undefined), as docs/MEMBER.md says of exclude_zero_settlements. */
export function lenientBoolean(raw: unknown): boolean | undefined {
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  return undefined;
}
