// The configured big.js constructor: 40 places for the rare division, half up by default. Only
// domain/money uses it (a dependency rule holds everything else to the named functions there).

import BigJs from 'big.js';
import type { Big as BigValue } from 'big.js';

export const Big = BigJs();
Big.DP = 40;
Big.RM = Big.roundHalfUp;
Big.NE = -50;
Big.PE = 50;
export type Decimal = BigValue;
