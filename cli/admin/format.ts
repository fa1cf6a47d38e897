// Readable output for the CLI: one object as a two-column table (nested values as compact JSON),
// or the raw answer with --json.

const VALUE_WIDTH_MAX = 100;

function cell(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  const json = JSON.stringify(value);
  return json.length > VALUE_WIDTH_MAX ? `${json.slice(0, VALUE_WIDTH_MAX - 1)}…` : json;
}

function table(object: Record<string, unknown>): string {
  const keys = Object.keys(object);
  const width = Math.max(0, ...keys.map((key) => key.length));
  return keys.map((key) => `${key.padEnd(width)}  ${cell(object[key])}`).join('\n');
}

/** Prints an answer: JSON when asked, otherwise each top-level object as a titled table. */
export function print(answer: Record<string, unknown>, json: boolean, out: (line: string) => void = console.log): void {
  if (json) {
    out(JSON.stringify(answer, null, 2));
    return;
  }
  const entries = Object.entries(answer);
  entries.forEach(([key, value], index) => {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      if (entries.length > 1) out(`${index > 0 ? '\n' : ''}[${key}]`);
      out(table(value as Record<string, unknown>));
    } else {
      out(`${key}  ${cell(value)}`);
    }
  });
}
