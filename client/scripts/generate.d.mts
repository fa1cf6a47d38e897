/** The generated module's text for an OpenAPI document (parsed JSON). */
export function generate(document: unknown): Promise<string>;
export const HEADER: string;
