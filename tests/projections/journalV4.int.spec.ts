// Old journals still read: a journal written in record version 4 (tests/fixtures/journal-v4, made
// by the build that wrote that version) replays, recovers and projects as it did
// (tests/projections/factsJournal.ts says how).

import { asCoreVersion5, asCoreVersion6 } from '../fixtures/journal-v3/replay.ts';
import { describeFactsJournal } from './factsJournal.ts';

describeFactsJournal({
  version: 4,
  folder: 'journal-v4',
  asToday: (tables) => asCoreVersion6(asCoreVersion5(tables)),
  smallerToday: true,
});
