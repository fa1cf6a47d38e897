// The admin token: ADMIN_TOKEN from the environment, or generated once at first start and kept
// in DATA_DIR/admin-token (owner-only permissions) so restarts and the CLI reuse it.

import { randomBytes, timingSafeEqual, createHash } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../../commands/context.ts';

const ADMIN_TOKEN_FILE = 'admin-token';
const GENERATED_TOKEN_BYTES = 32;

export function adminTokenPath(dataDir: string): string {
  return path.join(dataDir, ADMIN_TOKEN_FILE);
}

/** Reads a previously generated token, or undefined when there is none (or it is empty). */
export async function readStoredAdminToken(dataDir: string): Promise<string | undefined> {
  try {
    const stored = (await readFile(adminTokenPath(dataDir), 'utf8')).trim();
    return stored === '' ? undefined : stored;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/**
 * The token this service accepts on /admin/v1. An explicit ADMIN_TOKEN wins; otherwise the
 * token stored under DATA_DIR, generated (and logged where it is) on the first start.
 */
export async function resolveAdminToken(
  config: Pick<Config, 'adminToken' | 'dataDir'>,
  logger: Pick<Logger, 'info'>,
): Promise<string> {
  if (config.adminToken !== undefined && config.adminToken !== '') return config.adminToken;
  const file = adminTokenPath(config.dataDir);
  const stored = await readStoredAdminToken(config.dataDir);
  if (stored !== undefined) {
    logger.info({ file }, 'admin token read from file');
    return stored;
  }
  const token = `adm_${randomBytes(GENERATED_TOKEN_BYTES).toString('base64url')}`;
  await mkdir(config.dataDir, { recursive: true });
  // 'wx' refuses to overwrite a token another process wrote a moment ago
  try {
    await writeFile(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
      const raced = await readStoredAdminToken(config.dataDir);
      if (raced !== undefined) return raced;
    }
    throw err;
  }
  await chmod(file, 0o600);
  logger.info({ file }, `ADMIN_TOKEN not set: generated an admin token, stored in ${file} (owner-only)`);
  return token;
}

/** Constant-time comparison (hashing first makes the lengths equal, so length leaks nothing). */
export function tokensEqual(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}
