// What a test reads of a fetch Response: status, headers, the text, and the body parsed as JSON
// (null when the text is not JSON).

export interface FetchedAnswer {
  status: number;
  body: any;
  text: string;
  headers: Headers;
}

export async function answerOf(response: Response): Promise<FetchedAnswer> {
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  return { status: response.status, body, text, headers: response.headers };
}
