// Old journals still read: a journal written in record version 5 (tests/fixtures/journal-v5, made
// by the build that wrote that version) replays, recovers and projects as it did
// (tests/projections/factsJournal.ts says how).

import { asCoreVersion6 } from '../fixtures/journal-v3/replay.ts';
import { describeFactsJournal } from './factsJournal.ts';

describeFactsJournal({ version: 5, folder: 'journal-v5', asToday: asCoreVersion6, smallerToday: false });
