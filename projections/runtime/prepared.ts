// Projection statements are sent as named (prepared) statements: a connection parses and plans
// each text once instead of on every batch. One name per distinct text, so a name is never
// reused for a different statement on the same connection.

const names = new Map<string, string>();

/** A query config naming `text` by its first use in this process. */
export function prepared(text: string, values: unknown[]): { name: string; text: string; values: unknown[] } {
  let name = names.get(text);
  if (name === undefined) {
    name = `projection_${names.size + 1}`;
    names.set(text, name);
  }
  return { name, text, values };
}
