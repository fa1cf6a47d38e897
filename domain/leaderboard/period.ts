// Leaderboard periods on America/New_York calendar days: daily is today, weekly from Monday,
// monthly from the 1st, yearly from 1 January, all is lifetime. Boundaries are local midnights,
// converted to UTC with the zone's offset on that date (so they move with daylight saving).
// Pure: time arrives as an argument; Intl supplies the zone rules.

const LEADERBOARD_TIME_ZONE = 'America/New_York';
export const LEADERBOARD_PERIODS = ['daily', 'weekly', 'monthly', 'yearly', 'all'] as const;
export type Period = (typeof LEADERBOARD_PERIODS)[number];

const MS_PER_DAY = 86_400_000;

interface LocalDate {
  year: number;
  month: number; // 1..12
  day: number; // 1..31
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

function wallClock(ms: number, timeZone: string) {
  const parts: Record<string, number> = {};
  for (const part of formatterFor(timeZone).formatToParts(ms)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return {
    year: parts.year ?? 1970,
    month: parts.month ?? 1,
    day: parts.day ?? 1,
    hour: (parts.hour ?? 0) % 24,
    minute: parts.minute ?? 0,
    second: parts.second ?? 0,
  };
}

/** The zone's offset from UTC at an instant, in milliseconds (New York: −4 h or −5 h). */
function zoneOffsetMs(ms: number, timeZone = LEADERBOARD_TIME_ZONE): number {
  const local = wallClock(ms, timeZone);
  const asUtc = Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second);
  return asUtc - (ms - (((ms % 1000) + 1000) % 1000));
}

/** The calendar date in the zone at an instant. */
function localDateOf(us: number, timeZone = LEADERBOARD_TIME_ZONE): LocalDate {
  const { year, month, day } = wallClock(Math.floor(us / 1000), timeZone);
  return { year, month, day };
}

/** UTC instant (µs) of local midnight starting the given date (Date.UTC normalizes overflowing days/months). */
function localMidnightUs(date: LocalDate, timeZone = LEADERBOARD_TIME_ZONE): number {
  const guess = Date.UTC(date.year, date.month - 1, date.day);
  let utc = guess - zoneOffsetMs(guess, timeZone);
  const second = guess - zoneOffsetMs(utc, timeZone);
  if (second !== utc) utc = second;
  return utc * 1000;
}

/** 0 = Monday … 6 = Sunday. */
function weekdayFromMonday(date: LocalDate): number {
  const days = Math.floor(Date.UTC(date.year, date.month - 1, date.day) / MS_PER_DAY);
  return (days + 3) % 7; // 1970-01-01 was a Thursday
}

export interface PeriodBounds {
  /** Inclusive start (UTC µs), null for `all`. */
  start_us: number | null;
  /** The next reset (UTC µs), null for `all`. */
  next_reset_us: number | null;
}

export function periodBounds(period: Period, nowUs: number, timeZone = LEADERBOARD_TIME_ZONE): PeriodBounds {
  const today = localDateOf(nowUs, timeZone);
  const { year, month, day } = today;
  switch (period) {
    case 'daily':
      return {
        start_us: localMidnightUs(today, timeZone),
        next_reset_us: localMidnightUs({ year, month, day: day + 1 }, timeZone),
      };
    case 'weekly': {
      const monday = day - weekdayFromMonday(today);
      return {
        start_us: localMidnightUs({ year, month, day: monday }, timeZone),
        next_reset_us: localMidnightUs({ year, month, day: monday + 7 }, timeZone),
      };
    }
    case 'monthly':
      return {
        start_us: localMidnightUs({ year, month, day: 1 }, timeZone),
        next_reset_us: localMidnightUs({ year, month: month + 1, day: 1 }, timeZone),
      };
    case 'yearly':
      return {
        start_us: localMidnightUs({ year, month: 1, day: 1 }, timeZone),
        next_reset_us: localMidnightUs({ year: year + 1, month: 1, day: 1 }, timeZone),
      };
    case 'all':
      return { start_us: null, next_reset_us: null };
    default: {
      const unreachable: never = period;
      throw new Error(`unknown period ${String(unreachable)}`);
    }
  }
}
