// The Phoenix Channels V2 JSON wire format (`vsn=2.0.0`): every frame is an array
// `[join_ref, ref, topic, event, payload]`. What the official `phoenix` client sends and expects:
// `phx_join` / `phx_leave` answered by `phx_reply` `{status, response}`, `heartbeat` on topic
// `phoenix`, server-sent `phx_error` / `phx_close` (ref = the join's ref), and pushes whose
// join_ref is null when one serialised frame goes to every subscriber (the client then accepts
// it on whichever join of the topic it holds).

export const PHOENIX_TOPIC = 'phoenix';
export const EVENT_JOIN = 'phx_join';
export const EVENT_LEAVE = 'phx_leave';
const EVENT_REPLY = 'phx_reply';
export const EVENT_CLOSE = 'phx_close';
export const EVENT_HEARTBEAT = 'heartbeat';
export const PROTOCOL_VSN = '2.0.0';

/** Longest topic accepted (a channel name, a colon and a UUID fit many times over). */
const TOPIC_LENGTH_MAX = 200;
/** Longest event name accepted. */
const EVENT_LENGTH_MAX = 64;
/** Longest join_ref / ref accepted (the client sends small integer strings). */
const REF_LENGTH_MAX = 64;

interface InboundFrame {
  joinRef: string | null;
  ref: string | null;
  topic: string;
  event: string;
  payload: Record<string, unknown>;
}

/** Why an inbound frame could not be read; the socket answers by closing (as Phoenix does). */
type FrameProblem = 'not_json' | 'not_a_frame';

function refOf(value: unknown): string | null | undefined {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' && value.length <= REF_LENGTH_MAX) return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return undefined;
}

export function parseFrame(text: string): InboundFrame | FrameProblem {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'not_json';
  }
  if (!Array.isArray(value) || value.length !== 5) return 'not_a_frame';
  const [rawJoinRef, rawRef, topic, event, payload] = value as unknown[];
  const joinRef = refOf(rawJoinRef);
  const ref = refOf(rawRef);
  if (joinRef === undefined || ref === undefined) return 'not_a_frame';
  if (typeof topic !== 'string' || topic.length === 0 || topic.length > TOPIC_LENGTH_MAX) return 'not_a_frame';
  if (typeof event !== 'string' || event.length === 0 || event.length > EVENT_LENGTH_MAX) return 'not_a_frame';
  const body =
    payload !== null && typeof payload === 'object' && !Array.isArray(payload)
      ? (payload as Record<string, unknown>)
      : {};
  return { joinRef, ref, topic, event, payload: body };
}

export function encodeFrame(
  joinRef: string | null,
  ref: string | null,
  topic: string,
  event: string,
  payload: unknown,
): string {
  return JSON.stringify([joinRef, ref, topic, event, payload]);
}

export function encodeReply(
  joinRef: string | null,
  ref: string | null,
  topic: string,
  status: 'ok' | 'error',
  response: unknown,
): string {
  return encodeFrame(joinRef, ref, topic, EVENT_REPLY, { status, response });
}

/** A push to every subscriber of a topic: join_ref and ref null, serialised once. */
export function encodeBroadcast(topic: string, event: string, payload: unknown): string {
  return encodeFrame(null, null, topic, event, payload);
}
