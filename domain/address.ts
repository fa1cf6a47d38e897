// Peer addresses as the service records and compares them.

/** `::ffff:1.2.3.4` → `1.2.3.4`; anything else unchanged; absent → null. */
export function normalizeIp(ip: string | undefined | null): string | null {
  if (!ip) return null;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return mapped ? (mapped[1] as string) : ip;
}
