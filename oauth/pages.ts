// The server-rendered pages of the authorization flow: login, two-factor, sign-up, consent and
// the error page. Plain HTML forms, no scripts; every value is escaped; every form carries the
// browser session's CSRF token.

import { SCOPE_DESCRIPTIONS } from '../domain/auth/routeScopes.ts';

const escapeHtml = (text: string): string =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );

const STYLE = `body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;color:#1b1f24}
label{display:block;margin:.8rem 0 .2rem}input{width:100%;padding:.5rem;box-sizing:border-box}
button{margin-top:1rem;padding:.5rem 1.2rem}.error{color:#a40e26}.note{color:#38424d}ul{padding-left:1.2rem}`;

function page(title: string, body: string): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`
  );
}

const hidden = (name: string, value: string) =>
  `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`;
const field = (id: string, label: string, type: string, value = '', autocomplete = '') =>
  `<label for="${id}">${escapeHtml(label)}</label><input id="${id}" name="${id}" type="${type}" value="${escapeHtml(value)}"${autocomplete ? ` autocomplete="${autocomplete}"` : ''} required>`;
const message = (text: string | undefined, kind: 'error' | 'note') =>
  text ? `<p class="${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${escapeHtml(text)}</p>` : '';

export function loginPage(csrf: string, options: { error?: string; note?: string; email?: string } = {}): string {
  return page(
    'Log in',
    `${message(options.note, 'note')}${message(options.error, 'error')}
<form method="post" action="/oauth/login">${hidden('csrf', csrf)}
${field('email', 'Email', 'email', options.email ?? '', 'username')}
${field('password', 'Password', 'password', '', 'current-password')}
<button type="submit">Log in</button></form>
<p class="note">No account yet? <a href="/player/register">Create one</a>.</p>`,
  );
}

export function totpPage(csrf: string, error?: string): string {
  return page(
    'Two-factor authentication',
    `<p class="note">Enter the six-digit code from your authenticator app.</p>${message(error, 'error')}
<form method="post" action="/oauth/login/totp">${hidden('csrf', csrf)}
<label for="code">Code</label><input id="code" name="code" type="text" inputmode="numeric" pattern="[0-9]{6}" maxlength="6" autocomplete="one-time-code" required>
<button type="submit">Verify</button></form>`,
  );
}

interface RegisterValues {
  first_name?: string;
  last_name?: string;
  email?: string;
}

export function registerPage(csrf: string, values: RegisterValues = {}, error?: string): string {
  return page(
    'Create your account',
    `${message(error, 'error')}
<form method="post" action="/player/register">${hidden('csrf', csrf)}
${field('first_name', 'First name', 'text', values.first_name ?? '', 'given-name')}
${field('last_name', 'Last name', 'text', values.last_name ?? '', 'family-name')}
${field('email', 'Email', 'email', values.email ?? '', 'email')}
${field('password', 'Password', 'password', '', 'new-password')}
<button type="submit">Create account</button></form>`,
  );
}

export function consentPage(csrf: string, requestId: string, clientName: string, scopes: readonly string[]): string {
  const items = scopes
    .map((scope) => `<li>${escapeHtml(SCOPE_DESCRIPTIONS[scope] ?? scope)} <small>(${escapeHtml(scope)})</small></li>`)
    .join('');
  return page(
    'Allow access?',
    `<p><strong>${escapeHtml(clientName)}</strong> asks to act for you on this exchange:</p><ul>${items}</ul>
<form method="post" action="/oauth/consent">${hidden('csrf', csrf)}${hidden('request', requestId)}
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button></form>`,
  );
}

export function errorPage(text: string): string {
  return page(
    'Authorization error',
    `<p class="error" role="alert">${escapeHtml(text)}</p><p class="note">Return to the application and try again.</p>`,
  );
}

export function signedInPage(): string {
  return page('Signed in', '<p class="note">You are signed in. Return to the application to continue.</p>');
}
