// Accounts by email, for the login page (the core accounts read model; case-insensitive).
import type pg from 'pg';

/** At most this many accounts are tried for one email. */
const ACCOUNTS_PER_EMAIL_MAX = 5;

export function accountsByEmailQuery(pool: pg.Pool): (email: string) => Promise<string[]> {
  return async (email) => {
    const { rows } = await pool.query<{ account_id: string }>(
      `SELECT account_id FROM core_accounts WHERE lower(doc->>'email') = lower($1) ORDER BY seq DESC LIMIT ${ACCOUNTS_PER_EMAIL_MAX}`,
      [email],
    );
    return rows.map((row) => row.account_id);
  };
}
