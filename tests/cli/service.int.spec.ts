// The whole service in-process: probes, request ids, metrics, 404s and configuration errors.
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../cli/config.ts';
import { startTestService, type TestService } from '../support/service.ts';

describe('service process', function () {
  this.timeout(60_000);
  let service: TestService;

  const probesBeforeReady: Record<string, number> = {};

  before(async () => {
    service = await startTestService({
      onListening: async (baseUrl) => {
        for (const probe of ['/healthz', '/readyz', '/livez', '/api/v1/markets']) {
          probesBeforeReady[probe] = (await fetch(`${baseUrl}${probe}`)).status;
        }
      },
    });
  });

  it('answers 503 on /healthz, /readyz and the API until ready, while /livez is up', () => {
    expect(probesBeforeReady).to.deep.equal({ '/healthz': 503, '/readyz': 503, '/livez': 200, '/api/v1/markets': 503 });
  });
  after(async () => {
    await service?.stop();
  });

  it("answers the health probes once ready, readiness with the node's role and journal position", async () => {
    const live = await fetch(`${service.baseUrl}/livez`);
    expect(live.status).to.equal(200);
    expect(await live.json()).to.deep.equal({ status: 'ok' });
    for (const probe of ['/healthz', '/readyz']) {
      const response = await fetch(`${service.baseUrl}${probe}`);
      expect(response.status, probe).to.equal(200);
      const body = (await response.json()) as { status: string; role: string; position: string };
      expect(body.status, probe).to.equal('ok');
      expect(body.role, probe).to.equal('writer'); // a lone node takes the writer lease at once
      expect(body.position, probe).to.match(/^-?\d+$/);
    }
  });

  it('echoes a client X-Request-Id and makes one up otherwise', async () => {
    const echoed = await fetch(`${service.baseUrl}/livez`, { headers: { 'X-Request-Id': 'abc-123' } });
    expect(echoed.headers.get('x-request-id')).to.equal('abc-123');
    const made = await fetch(`${service.baseUrl}/livez`);
    expect(made.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
  });

  it('answers unknown paths with a JSON 404', async () => {
    const response = await fetch(`${service.baseUrl}/no/such/path`);
    expect(response.status).to.equal(404);
    expect(await response.json()).to.deep.equal({ error: 'Not found' });
  });

  it('exposes Prometheus metrics: requests, projection lag, process', async () => {
    await fetch(`${service.baseUrl}/livez`);
    const response = await fetch(`${service.adminUrl}/metrics`);
    expect(response.status).to.equal(200);
    const text = await response.text();
    expect(text).to.contain('http_request_duration_seconds_bucket');
    expect(text).to.contain('projection_lag_events{projector=');
    expect(text).to.contain('process_cpu_user_seconds_total');
  });

  it('wires the test clock and the admin token', () => {
    expect(service.ctx.testClock).to.not.equal(null);
    expect(service.ctx.config.adminToken).to.equal(service.adminToken);
  });
});

describe('configuration', () => {
  const cases: Array<[Record<string, string>, string]> = [
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ WS_PORT: '-1' }, 'WS_PORT'],
    [{ JURISDICTION: 'uk' }, 'JURISDICTION'],
    [{ TEST_CLOCK: 'maybe' }, 'TEST_CLOCK'],
    [{ DEMO: '2' }, 'DEMO'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ EVENTSTORE_URL: 'not a url' }, 'EVENTSTORE_URL'],
  ];
  for (const [env, variable] of cases) {
    it(`refuses ${JSON.stringify(env)} naming ${variable}`, () => {
      expect(() => loadConfig(env)).to.throw(ConfigError, variable);
    });
  }

  it('has the documented defaults', () => {
    const config = loadConfig({});
    expect(config).to.include({
      port: 8080,
      wsPort: 8081,
      adminPort: 8082,
      adminHost: '127.0.0.1',
      jurisdiction: 'us',
      testClock: false,
      demo: false,
      logLevel: 'info',
    });
    expect(config.dataDir).to.match(/data$/);
    expect(config.databaseUrl).to.equal(undefined);
  });
});
