// Peer addresses as the service records and compares them.

/** An IPv4-mapped IPv6 address in hexadecimal, as uWebSockets.js writes it (`0000:…:ffff:7f00:0001`, or `::ffff:7f00:1`). */
const MAPPED_HEX = /^(?:(?:0{1,4}:){5}|::)ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i;
/** An IPv4-mapped IPv6 address in dotted form, as Node writes it (`::ffff:1.2.3.4`). */
const MAPPED_DOTTED = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

/** An IPv4-mapped address → its IPv4 address (`::ffff:1.2.3.4`, `::ffff:102:304` → `1.2.3.4`); anything else unchanged; absent or empty → null. */
export function normalizeIp(ip: string | undefined | null): string | null {
  if (!ip) return null;
  const hex = MAPPED_HEX.exec(ip);
  if (hex) {
    const [, highText = '0', lowText = '0'] = hex;
    const high = parseInt(highText, 16);
    const low = parseInt(lowText, 16);
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  const dotted = MAPPED_DOTTED.exec(ip);
  return dotted?.[1] ?? ip;
}
