// The one table from order-command refusals to REST answers (SPEC "REST API errors").

import { LOCATION_MESSAGES } from '../../../commands/orders/location.ts';
import type { OrderRefusal } from '../../../commands/orders/orders.ts';
import { HttpError, statusOfDomainCode } from '../../errors.ts';

export const ORDER_NOT_FOUND = 'Order not found';

export function httpErrorOfOrderRefusal(refusal: OrderRefusal): HttpError {
  switch (refusal.code) {
    case 'invalid_order_field':
      return new HttpError(400, refusal.message);
    case 'batch_too_large':
      return new HttpError(400, `orders must hold at most ${refusal.limit} orders`);
    case 'location_missing':
    case 'location_bad_code':
    case 'location_blocked_network':
      return new HttpError(422, LOCATION_MESSAGES[refusal.code]);
    case 'order_rejected':
      return new HttpError(422, refusal.reason);
    case 'engine_refused':
      return new HttpError(statusOfDomainCode(refusal.error.code), refusal.error.message || 'Request refused');
    default: {
      const unknown: never = refusal;
      throw new Error(`unmapped order refusal ${JSON.stringify(unknown)}`);
    }
  }
}
