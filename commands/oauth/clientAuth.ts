// Client authentication at the token, revocation and introspection endpoints. A client with a
// secret authenticates with HTTP Basic only (`client_secret_basic`): RFC 6749 §2.3.1 has the id
// and secret form-urlencoded before base64, so they are decoded here before the lookup (strict
// clients send a UUID's `-` as `%2D`). A secret in the form body is refused. A client without
// a secret names itself with `client_id` in the form and proves itself later (PKCE).

import { isConfidential } from '../oauthClients/client.ts';
import type { ClientDirectory, KnownClient } from '../oauthClients/directory.ts';
import { InvalidClient } from './errors.ts';
import { single, type OAuthRequest } from './http.ts';

const BASIC_FORMAT = /^Basic +([A-Za-z0-9+/]+={0,2}) *$/i;
const CLIENT_ID_LENGTH_MAX = 200;
const SECRET_LENGTH_MAX = 200;

export interface AuthenticatedClient {
  known: KnownClient;
  /** Whether it proved a secret (Basic) rather than only naming itself. */
  withSecret: boolean;
  /** The Basic credentials as decoded (for the protocol library, which does not decode them). */
  secret: string | null;
}

/** application/x-www-form-urlencoded decoding of one Basic part; null when malformed. */
function formDecode(part: string): string | null {
  if (part.indexOf('%') < 0 && part.indexOf('+') < 0) return part; // nothing encoded (the usual id and secret)
  try {
    return decodeURIComponent(part.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

function basicCredentials(header: string | undefined): { id: string; secret: string } | null | undefined {
  if (header === undefined) return undefined;
  const match = BASIC_FORMAT.exec(header);
  if (!match) return null;
  const decoded = Buffer.from(match[1] as string, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  const id = formDecode(decoded.slice(0, colon));
  const secret = formDecode(decoded.slice(colon + 1));
  if (
    id === null ||
    secret === null ||
    id === '' ||
    id.length > CLIENT_ID_LENGTH_MAX ||
    secret.length > SECRET_LENGTH_MAX
  )
    return null;
  return { id, secret };
}

/**
 * The client behind a request; throws InvalidClient refusing it. `publicAllowed`: whether a client
 * without a secret may name itself here (the code and refresh grants, revocation).
 */
export async function authenticateClient(
  request: OAuthRequest,
  clients: ClientDirectory,
  publicAllowed: boolean,
): Promise<AuthenticatedClient> {
  if (request.body.client_secret !== undefined) {
    throw new InvalidClient(
      'client_secret in the request body is not accepted; authenticate with HTTP Basic (client_secret_basic)',
    );
  }
  const basic = basicCredentials(request.headers.authorization);
  const bodyId = single(request.body, 'client_id');
  if (bodyId === null) throw new InvalidClient('client_id must be given once');
  if (basic === null) throw new InvalidClient('the Authorization header is not valid HTTP Basic credentials');
  if (basic) {
    if (bodyId !== undefined && bodyId !== basic.id)
      throw new InvalidClient('client_id in the body differs from the authenticated client');
    const known = await clients.get(basic.id);
    if (!known || known.client.status !== 'active' || !clients.verifySecret(known, basic.secret)) {
      throw new InvalidClient('client authentication failed');
    }
    return { known, withSecret: true, secret: basic.secret };
  }
  if (bodyId === undefined || bodyId === '')
    throw new InvalidClient(
      'client authentication is required: HTTP Basic, or client_id for a client without a secret',
    );
  if (bodyId.length > CLIENT_ID_LENGTH_MAX) throw new InvalidClient('client authentication failed');
  const known = await clients.get(bodyId);
  if (!known || known.client.status !== 'active') throw new InvalidClient('client authentication failed');
  if (isConfidential(known.client.app_type))
    throw new InvalidClient('this client has a secret: authenticate with HTTP Basic');
  if (!publicAllowed) throw new InvalidClient('this request needs a client with a secret');
  return { known, withSecret: false, secret: null };
}
