// The reference of bench:oauth: oidc-provider serving one client_credentials client, started as a
// child process with the service's node flags; prints its port when listening.
import Provider from 'oidc-provider';

const [clientId, clientSecret] = process.argv.slice(2);
const provider = new Provider('http://127.0.0.1', {
  clients: [
    {
      client_id: clientId,
      client_secret: clientSecret,
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      token_endpoint_auth_method: 'client_secret_basic',
      scope: 'market_data',
    },
  ],
  scopes: ['market_data'],
  features: { clientCredentials: { enabled: true }, devInteractions: { enabled: false } },
});
const server = provider.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
