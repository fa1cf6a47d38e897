// Progress lines of long commands: drawn on a terminal (done/total, rate, time left), silent in a pipe.

import { expect } from 'chai';
import { terminalProgress } from '../../cli/progress.ts';
import { capturedStream } from '../support/streams.ts';

describe('terminal progress', () => {
  it('on a terminal: what is done of the total, the rate and the time left, then a cleared line', () => {
    const tty = capturedStream(true);
    const progress = terminalProgress('replaying the journal', 1000, 'positions', tty.stream);
    progress.update(1000);
    progress.finish();
    expect(tty.written[0]).to.match(
      /replaying the journal: 1,000\/1,000 positions \(100%\), [\d,]+ positions\/s, .* left/,
    );
    expect(tty.written.at(-1)).to.equal('\r\x1b[2K');
  });

  it('in a pipe: nothing at all', () => {
    const pipe = capturedStream(false);
    const progress = terminalProgress('rebuilding core', 10, 'positions', pipe.stream);
    progress.update(5);
    progress.finish();
    expect(pipe.written).to.deep.equal([]);
  });
});
