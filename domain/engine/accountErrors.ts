// Refusal texts about accounts, shared by the account and order deciders.

export const AccountErrors = {
  notFound: 'Account not found',
  exists: 'Account already exists',
  notActive: 'Account is not active',
  insufficientFunds: 'Insufficient funds',
} as const;
