// The service's TypeScript loader (cli/register.js → cli/tsLoader.js), in a fresh node process as
// `npm start` uses it: TypeScript runs (parameter properties, class fields), functions keep their
// names without esbuild's keepNames, and a stack trace names the .ts file and line.

import { execFileSync } from 'node:child_process';
import { expect } from 'chai';

const script = `
  const m = await import('./tests/cli/fixtures/typed.ts');
  const g = new m.Greeter('ada');
  const out = { greet: g.greet(), count: g.count, names: [m.Greeter.name, m.shout.name, m.fail.name], shout: m.shout('x') };
  try { m.fail(); } catch (error) { out.stack = String(error.stack); }
  console.log(JSON.stringify(out));
`;

describe('TypeScript loader of the service', () => {
  it('runs TypeScript with names kept and stack traces on the .ts lines', () => {
    const output = execFileSync(
      process.execPath,
      ['--import', './cli/register.js', '--input-type=module', '-e', script],
      { encoding: 'utf8' },
    );
    const result = JSON.parse(output.trim().split('\n').pop()!) as {
      greet: string;
      count: number;
      names: string[];
      shout: string;
      stack: string;
    };
    expect(result).to.include({ greet: 'hello ada', count: 1, shout: 'X' });
    expect(result.names).to.deep.equal(['Greeter', 'shout', 'fail']);
    expect(result.stack).to.match(/typed\.ts:17:\d+/);
  });
});
