// Typed business errors. Each carries a stable code; the HTTP edge (api/, oauth/, realtime/)
// maps codes to statuses in one place. The engine returns these as values on its hot path.

export type DomainErrorCode =
  | 'invalid' // 400: malformed input that got past the schema
  | 'not_found' // 404
  | 'refused' // 422: a business rule refused it
  | 'conflict'; // 409/422: a concurrent change won

export class DomainError extends Error {
  constructor(readonly code: DomainErrorCode, message: string) {
    super(message);
    this.name = new.target.name;
  }
}
export class InvalidInput extends DomainError { constructor(message: string) { super('invalid', message); } }
export class NotFound extends DomainError { constructor(message: string) { super('not_found', message); } }
export class Refused extends DomainError { constructor(message: string) { super('refused', message); } }
export class InsufficientFunds extends Refused { constructor(message = 'Insufficient funds') { super(message); } }

/** Plain-data form of a DomainError, as carried in engine replies and journals. */
export interface ErrorInfo { code: DomainErrorCode; message: string }
